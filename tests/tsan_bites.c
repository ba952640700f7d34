// The mistake a threaded kernel is most likely to make: every thread packs
// into one shared scratch buffer instead of its own. Run under the
// ThreadSanitizer build of the omp family's tests, it must be reported
// (meson: should_fail), or the clean run of the family proves nothing.
#include <stdio.h>

enum { N = 4096, THREADS = 2 };

int main(void)
{
    static float scratch[N], out[THREADS];
#pragma omp parallel num_threads(THREADS)
    {
#ifdef _OPENMP
        extern int omp_get_thread_num(void);
        const int t = omp_get_thread_num();
#else
        const int t = 0;
#endif
        float s = 0.0f;
        for (int i = 0; i < N; i++) scratch[i] = (float)(i + t); // shared: the race
        for (int i = 0; i < N; i++) s += scratch[i];
        out[t] = s;
    }
    printf("%g %g\n", out[0], out[1]);
    return 0;
}
