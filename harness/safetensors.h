// The safetensors format (huggingface/safetensors): an 8-byte little-endian
// header length N, N bytes of JSON mapping each tensor name to its dtype,
// shape and [begin, end) byte offsets into the data that follows, plus an
// optional "__metadata__" object of strings. Parsed as hostile input: every
// size, offset and shape is checked before a byte of data is touched.
#ifndef XF_SAFETENSORS_H
#define XF_SAFETENSORS_H

#include <stddef.h>
#include <stdint.h>

enum { XF_ST_MAX_DIMS = 8 };

typedef struct {
    char *name;
    char dtype[8];           // "F32", "BOOL", ...
    size_t elem_size;
    int ndim;
    int64_t shape[XF_ST_MAX_DIMS];
    size_t numel;
    const uint8_t *data;     // into the parsed buffer; not aligned
    size_t nbytes;
} xf_st_tensor;

typedef struct {
    xf_st_tensor *t;
    int n;
    char **meta_key, **meta_val;
    int nmeta;
    uint8_t *owned;          // the file contents, when loaded by xf_st_load
} xf_st;

// Parses buf[0..size) (not copied: tensors point into it). 0, or -1 with a
// one-line reason in err.
int xf_st_parse(const uint8_t *buf, size_t size, xf_st *st, char *err, size_t err_size);
// Reads and parses a file, refusing one larger than max_bytes.
int xf_st_load(const char *path, double max_bytes, xf_st *st, char *err, size_t err_size);
void xf_st_free(xf_st *st);

const xf_st_tensor *xf_st_find(const xf_st *st, const char *name);
const char *xf_st_meta(const xf_st *st, const char *key);

// A tensor to write: F32 data with its shape.
typedef struct {
    const char *name;
    const float *data;
    int ndim;
    int64_t shape[XF_ST_MAX_DIMS];
} xf_st_out;

// Writes tensors (and metadata pairs) to path. 0, or -1 with err.
int xf_st_write(const char *path, const xf_st_out *t, int n, const char *const *meta_kv,
                int nmeta, char *err, size_t err_size);

#endif
