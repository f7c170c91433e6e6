/* A minimal host of a native step library (fmu_vehicle.native): what an FMI layer does with it, as a program
 * that the tests run and compare with the package's Python stepper.
 *
 *   step_host <library> <image file> <run file> <rows file>
 *
 * Loads the library (dlopen, or LoadLibrary on Windows), makes an instance from the image (fv_instance_new),
 * reads the run file (below), makes n_steps communication steps of h [s] each in `substeps` RK4 steps
 * (fv_advance; t advances by h per step, t += h, as VehicleSimulator.advance does) and writes the output row
 * after every step to the rows file (n_steps x n_outputs doubles, native byte order). Prints one line:
 *   status=<last status> steps=<steps made> libpython=<0|1> t=<final time>
 * where libpython=1 means a Python library is mapped in this process (/proc/self/maps on Linux; the loaded
 * modules python3*.dll on Windows). Exit code 0 if every step returned 0.
 *
 * Run file (little-endian): char magic[8] = "FVRUN001"; int64 n_steps, substeps, key_word; double t0, h;
 * double y[n_states], work[5 n_states], saved[1 + n_key], row[n_outputs] (sizes from fv_shape). key_word
 * is the position among the instance's words of the data pointer of the key array (data.inputs).
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#ifdef _WIN32
#include <windows.h>
#define LOAD(path) ((void *)LoadLibraryA(path))
#define SYM(lib, name) ((void *)GetProcAddress((HMODULE)(lib), name))
#else
#include <dlfcn.h>
#define LOAD(path) dlopen(path, RTLD_NOW | RTLD_LOCAL)
#define SYM(lib, name) dlsym(lib, name)
#endif

typedef void (*shape_fn)(int64_t *);
typedef void *(*new_fn)(const void *, int64_t, int64_t **, int64_t **);
typedef void (*free_fn)(void *);
typedef const char *(*error_fn)(void);
typedef int64_t (*advance_fn)(int64_t *, int64_t *, double, double, int64_t, double *, double *, double *,
                              double *, double *, int64_t *);

static unsigned char *read_file(const char *path, int64_t *n) {
    FILE *f = fopen(path, "rb");
    if (!f) { fprintf(stderr, "step_host: cannot open %s\n", path); exit(2); }
    fseek(f, 0, SEEK_END);
    long size = ftell(f);
    fseek(f, 0, SEEK_SET);
    unsigned char *buf = (unsigned char *)malloc((size_t)size + 8);
    if (!buf || fread(buf, 1, (size_t)size, f) != (size_t)size) { fprintf(stderr, "step_host: cannot read %s\n", path); exit(2); }
    fclose(f);
    *n = size;
    return buf;
}

static int python_mapped(void) {
#ifdef _WIN32
    const char *names[] = {"python3.dll", "python310.dll", "python311.dll", "python312.dll", "python313.dll", "python314.dll"};
    for (size_t k = 0; k < sizeof names / sizeof names[0]; k++)
        if (GetModuleHandleA(names[k])) return 1;
    return 0;
#else
    FILE *f = fopen("/proc/self/maps", "r");
    if (!f) return -1;
    char line[4096];
    int found = 0;
    while (fgets(line, sizeof line, f))
        if (strstr(line, "libpython")) found = 1;
    fclose(f);
    return found;
#endif
}

int main(int argc, char **argv) {
    if (argc != 5) { fprintf(stderr, "usage: step_host <library> <image> <run> <rows>\n"); return 2; }
    void *lib = LOAD(argv[1]);
    if (!lib) { fprintf(stderr, "step_host: cannot load %s\n", argv[1]); return 2; }
    shape_fn fv_shape = (shape_fn)SYM(lib, "fv_shape");
    new_fn fv_instance_new = (new_fn)SYM(lib, "fv_instance_new");
    free_fn fv_instance_free = (free_fn)SYM(lib, "fv_instance_free");
    error_fn fv_last_error = (error_fn)SYM(lib, "fv_last_error");
    advance_fn fv_advance = (advance_fn)SYM(lib, "fv_advance");
    if (!fv_shape || !fv_instance_new || !fv_instance_free || !fv_last_error || !fv_advance) {
        fprintf(stderr, "step_host: %s lacks an fv_* function\n", argv[1]);
        return 2;
    }
    int64_t shape[5];
    fv_shape(shape);
    int64_t n = shape[2], nout = shape[3], nkey = shape[4];

    int64_t image_bytes;
    unsigned char *image = read_file(argv[2], &image_bytes);
    int64_t *model_buf, *data_buf;
    void *inst = fv_instance_new(image, image_bytes, &model_buf, &data_buf);
    if (!inst) { fprintf(stderr, "step_host: %s\n", fv_last_error()); return 2; }
    free(image);

    int64_t run_bytes;
    unsigned char *run = read_file(argv[3], &run_bytes);
    int64_t head[3];
    double th[2];
    int64_t nd = 2 + n + 5 * n + 1 + nkey + nout;
    if (run_bytes != 8 + 8 * 3 + 8 * nd || memcmp(run, "FVRUN001", 8) != 0) {
        fprintf(stderr, "step_host: %s is not a run file for this library\n", argv[3]);
        return 2;
    }
    memcpy(head, run + 8, sizeof head);
    memcpy(th, run + 32, sizeof th);
    int64_t n_steps = head[0], substeps = head[1], key_word = head[2];
    double *y = (double *)malloc(sizeof(double) * (size_t)n);
    double *work = (double *)malloc(sizeof(double) * (size_t)(5 * n));
    double *saved = (double *)malloc(sizeof(double) * (size_t)(1 + nkey));
    double *row = (double *)malloc(sizeof(double) * (size_t)nout);
    const unsigned char *p = run + 48;
    memcpy(y, p, 8 * (size_t)n); p += 8 * n;
    memcpy(work, p, 8 * (size_t)(5 * n)); p += 8 * 5 * n;
    memcpy(saved, p, 8 * (size_t)(1 + nkey)); p += 8 * (1 + nkey);
    memcpy(row, p, 8 * (size_t)nout);
    free(run);
    double *key = (double *)(intptr_t)model_buf[key_word];      /* the instance's own data.inputs */

    FILE *out = fopen(argv[4], "wb");
    if (!out) { fprintf(stderr, "step_host: cannot write %s\n", argv[4]); return 2; }
    double t = th[0], h = th[1], step = h / (double)substeps;
    int64_t status = 0, k = 0, done = 0;
    for (; k < n_steps; k++) {
        status = fv_advance(model_buf, data_buf, t, step, substeps, y, row, work, key, saved, &done);
        if (status != 0) {
            fprintf(stderr, "step_host: step %lld at t = %.17g: status %lld after %lld substeps: %s\n",
                    (long long)k, t, (long long)status, (long long)done, fv_last_error());
            break;
        }
        t = t + h;
        fwrite(row, sizeof(double), (size_t)nout, out);
    }
    fclose(out);
    printf("status=%lld steps=%lld libpython=%d t=%.17g\n", (long long)status, (long long)k, python_mapped(), t);
    fv_instance_free(inst);
    free(y); free(work); free(saved); free(row);
    return status == 0 ? 0 : 1;
}
