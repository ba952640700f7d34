// nn.Transformer weights (and optionally inputs and PyTorch's outputs) from a
// safetensors file, bound to a forward-pass instance.
#ifndef XF_MODEL_FILE_H
#define XF_MODEL_FILE_H

#include "case.h"
#include "safetensors.h"

// Fills in (stage forward) from st. base supplies the seed, and the batch
// and lengths of any input the file does not hold; heads_given: base->heads
// came from --heads. 0, or -1 with a one-line reason naming the tensor.
int xf_instance_from_file(xf_instance *in, const xf_st *st, const xf_case *base, int heads_given,
                          char *err, size_t err_size);

// Turns a forward instance from a file into the same model decoded token
// by token (stage generate): the encoder once, then one decoder step per
// row of the file's tgt (teacher-forced), no lm_head (a file has no
// embedding table). Its outputs stay memory and y, checked against the
// full pass's reference and compared with PyTorch's full-pass outputs.
// Target padding must be trailing (a sequence ends; it does not resume):
// 0, or -1 with the reason.
int xf_instance_decode_file(xf_instance *in, char *err, size_t err_size);

#endif
