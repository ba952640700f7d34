// xfbench with the deliberately broken variants of variants/mutant
// registered: the tests run it and require every mutant to FAIL. A leading
// `--plant BUG` also plants a bug in the compositions
// (variants/compose/compose.h), which the decode and padding checks must
// catch. It travels in the environment (XFBENCH_PLANT), because xfbench may
// start itself again to pin its threads.
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../harness/app.h"
#include "../harness/registry.h"

extern const xf_family xf_family_mutant;

int main(int argc, char **argv)
{
    static const char *const bugs[] = {"cache-short", "append-late", "cross-reads-self", "pad-rows-left"};
    if (argc >= 3 && !strcmp(argv[1], "--plant")) {
        setenv("XFBENCH_PLANT", argv[2], 1);
        argv[2] = argv[0];
        argc -= 2, argv += 2;
    }
    const char *plant = getenv("XFBENCH_PLANT");
    if (plant && *plant) {
        int found = 0;
        for (int i = 0; i < 4; i++)
            if (!strcmp(plant, bugs[i])) xf_compose_planted_bug = (xf_compose_bug)(i + 1), found = 1;
        if (!found) {
            fprintf(stderr, "xfbench-mutants: --plant: '%s' is not cache-short, append-late, cross-reads-self or"
                            " pad-rows-left\n", plant);
            return 2;
        }
    }
    xf_registry_add(&xf_family_mutant);
    return xf_main(argc, argv);
}
