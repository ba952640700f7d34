// Fuzz target: any byte string through the safetensors parser and the
// nn.Transformer binding, as `xfbench forward --weights` reads a file.
// Built two ways: with clang's libFuzzer (meson -Dfuzz=true, run by .ci/run
// for a bounded time), and as a replay driver (XF_FUZZ_REPLAY) that meson
// test runs over the committed malformed files and golden files.
#include <stdio.h>
#include <stdlib.h>

#include "../harness/model_file.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    xf_st st;
    char err[400];
    if (xf_st_parse(data, size, &st, err, sizeof err) != 0) return 0;
    // Inputs the file lacks are generated at this small shape.
    xf_case base = {.stage = XF_FORWARD, .batch = 1, .heads = 2, .seq_q = 3, .seq_k = 2, .seed = 1};
    xf_instance in;
    xf_instance_from_file(&in, &st, &base, 0, err, sizeof err);
    xf_instance_free(&in);
    xf_st_free(&st);
    return 0;
}

#ifdef XF_FUZZ_REPLAY
int main(int argc, char **argv)
{
    for (int i = 1; i < argc; i++) {
        FILE *f = fopen(argv[i], "rb");
        if (!f) {
            fprintf(stderr, "cannot open %s\n", argv[i]);
            return 1;
        }
        fseek(f, 0, SEEK_END);
        long n = ftell(f);
        fseek(f, 0, SEEK_SET);
        uint8_t *buf = malloc(n > 0 ? (size_t)n : 1);
        size_t got = fread(buf, 1, (size_t)(n > 0 ? n : 0), f);
        fclose(f);
        LLVMFuzzerTestOneInput(buf, got);
        free(buf);
    }
    printf("replayed %d files through the parser and binder\n", argc - 1);
    return 0;
}
#endif
