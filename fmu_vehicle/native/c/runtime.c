/* The C runtime of a native step library (fmu_vehicle.native): linked with the machine code of the
 * package's compiled step (fv_advance_raw, fv_final_raw: fmu_vehicle/native/step.py), it makes a shared
 * library that needs neither Python nor numba.
 *
 * 1. Stand-ins for the Python C API and numba runtime symbols the compiled code references on its error
 *    paths only (a `raise` in nopython code reports through them; nothing calls them on the normal path).
 *    They call no Python: they record that an exception was raised and its message, per thread, so that
 *    fv_advance / fv_final return FV_STATUS_RAISED and fv_last_error() gives the message.
 * 2. Instances from images (fmu_vehicle/native/layout.py): fv_instance_new copies an image's buffers and
 *    blob into one fresh allocation and relocates the arrays' data pointers (add the blob's address), so
 *    every instance has its own workspace.
 * 3. The entry points fv_advance / fv_final: the compiled step, with a raised exception turned into a status.
 *
 * Compile-time constants (-D...): FV_MODEL_WORDS, FV_DATA_WORDS, FV_N_STATES, FV_N_OUTPUTS, FV_N_KEY, the
 * sizes the step was compiled for (fmu_vehicle.native.step.StepShape); an image of other sizes is refused.
 * Built with -fvisibility=hidden: only FV_API symbols are exported, so in a process that also holds
 * libpython the stand-ins never bind to (or are bound from) the real Python C API; with -DFV_STEP_PRIVATE
 * (a native FMU's build) nothing of this file is exported.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* FV_API: exported from a step library (a host such as step_host.c calls it); in a native FMU
 * (-DFV_STEP_PRIVATE) hidden like everything else, so that the library exports its fmi2* functions only and
 * two native FMUs in one process never call each other's fv_* functions (docs/native.md §4). */
#if defined(FV_STEP_PRIVATE)
#define FV_API
#elif defined(_WIN32)
#define FV_API __declspec(dllexport)
#else
#define FV_API __attribute__((visibility("default")))
#endif

#if defined(__linux__) && defined(__x86_64__) && defined(__GLIBC__)
#include <math.h>
/* glibc 2.29 gave exp a new default symbol version (the same function without the SVID error wrapper). The link
 * wraps exp (-Wl,--wrap=exp, native/emit.py OLD_GLIBC_VERSIONS) and calls its first version, which computes the
 * same values, so that the library also loads on a glibc older than 2.29. */
__asm__(".symver exp, exp@GLIBC_2.2.5");
double __wrap_exp(double x);
double __wrap_exp(double x) { return exp(x); }
#endif

#ifndef FV_MODEL_WORDS
#error "compile with -DFV_MODEL_WORDS=... -DFV_DATA_WORDS=... -DFV_N_STATES=... -DFV_N_OUTPUTS=... -DFV_N_KEY=..."
#endif

/* status returned when the compiled code raised an exception (numba's own codes are 0, 1 and < 0 small) */
#define FV_STATUS_RAISED (-1000)
#define FV_STATUS_BAD_ARGUMENT (-1001)

/* ---- error state ------------------------------------------------------------------------------------- */
typedef struct {
    int raised;
    char message[512];
} fv_error_state;

static _Thread_local fv_error_state fv_err;

static void fv_clear_error(void) { fv_err.raised = 0; fv_err.message[0] = '\0'; }

static void fv_append(const char *text) {
    size_t n = strlen(fv_err.message);
    if (n && n < sizeof fv_err.message - 1) fv_err.message[n++] = ' ';
    snprintf(fv_err.message + n, sizeof fv_err.message - n, "%s", text);
}

static void fv_raise(const char *text) {
    if (!fv_err.raised) fv_err.message[0] = '\0';
    fv_err.raised = 1;
    fv_append(text);
}

/* the message of the last failed call in this thread ("" if none) */
FV_API const char *fv_last_error(void) { return fv_err.message; }

/* ---- 1. stand-ins for the Python C API and numba's runtime (error paths only) ------------------------ */
/* An exception type is a pointer to its name (the compiled code only passes PyExc_* on). */
void *PyExc_StopIteration = (void *)"StopIteration";
void *PyExc_SystemError = (void *)"SystemError";
void *PyExc_RuntimeError = (void *)"RuntimeError";

static const char *fv_exc_name(void *exc) {
    if (exc == &PyExc_StopIteration) return "StopIteration";
    if (exc == &PyExc_SystemError) return "SystemError";
    if (exc == &PyExc_RuntimeError) return "RuntimeError";
    if (exc == PyExc_StopIteration || exc == PyExc_SystemError || exc == PyExc_RuntimeError) return (const char *)exc;
    return "exception";
}

static char fv_object;              /* what the stand-ins return for a "Python object" */

void PyErr_Clear(void) {}
void PyErr_SetNone(void *exc) { fv_raise(fv_exc_name(exc)); }
void PyErr_SetString(void *exc, const char *msg) { fv_raise(fv_exc_name(exc)); fv_append(msg); }
void PyErr_WriteUnraisable(void *obj) { (void)obj; if (!fv_err.raised) fv_raise("exception"); }
void *PyUnicode_FromString(const char *s) { (void)s; return &fv_object; }
void Py_DecRef(void *obj) { (void)obj; }
int numba_gil_ensure(void *state) { (void)state; return 0; }
void numba_gil_release(void *state) { (void)state; }
/* the compiled code allocates nothing (its arrays have no meminfo): nothing to destroy or free */
void NRT_MemInfo_call_dtor(void *mi) { (void)mi; }
void NRT_Free(void *ptr) { (void)ptr; }

/* numba pickles a raised exception as (class, arguments, location); its strings (SHORT_BINUNICODE /
 * BINUNICODE opcodes) make the message "<class>: <arguments> (in <function> <file>)", e.g.
 * "ValueError: road_eval: unknown road kind (in road_surface .../road/kernel.py)" */
static void fv_pickle_strings(const unsigned char *p, int64_t n) {
    const unsigned char *str[8];
    int64_t len[8];
    int count = 0;
    for (int64_t i = 0; i + 1 < n && count < 8; i++) {
        int64_t k = -1, start = 0;
        if (p[i] == 0x8c) { k = p[i + 1]; start = i + 2; }
        else if (p[i] == 'X' && i + 4 < n) { k = p[i + 1] | p[i + 2] << 8 | p[i + 3] << 16 | (int64_t)p[i + 4] << 24; start = i + 5; }
        if (k <= 0 || start + k > n) continue;
        int printable = 1;
        for (int64_t j = 0; j < k; j++) if (p[start + j] < 0x20 || p[start + j] > 0x7e) { printable = 0; break; }
        if (!printable) continue;
        str[count] = p + start;
        len[count++] = k;
        i = start + k - 1;
    }
    int first = (count > 1 && len[0] == 8 && memcmp(str[0], "builtins", 8) == 0) ? 1 : 0;
    char text[sizeof fv_err.message];
    size_t used = 0;
    for (int c = first; c < count; c++) {
        const char *sep = c == first ? "" : c == first + 1 ? ": " : c == first + 2 ? " (in " : " ";
        int w = snprintf(text + used, sizeof text - used, "%s%.*s", sep, (int)len[c], (const char *)str[c]);
        if (w < 0 || (size_t)w >= sizeof text - used) { used = sizeof text - 1; break; }
        used += (size_t)w;
    }
    if (count - first > 2 && used + 1 < sizeof text) text[used++] = ')';
    text[used] = '\0';
    fv_raise(used ? text : "exception");
}

void *numba_unpickle(const char *data, int n, const char *hashed) {
    (void)hashed;
    fv_pickle_strings((const unsigned char *)data, n);
    return &fv_object;
}

/* an exception with arguments known only at run time: the pickled part as above */
void *PyBytes_FromStringAndSize(const char *data, int64_t n) {
    fv_pickle_strings((const unsigned char *)data, n);
    return &fv_object;
}

void *numba_runtime_build_excinfo_struct(void *struct_gv, void *exc_args) {
    (void)exc_args;
    (void)struct_gv;
    return &fv_object;
}

int numba_do_raise(void *exc) { (void)exc; if (!fv_err.raised) fv_raise("exception"); return 0; }

/* ---- 2. instances from images ------------------------------------------------------------------------ */
#define FV_HEADER_BYTES 40
#define FV_ALIGN 64

static int64_t fv_read64(const unsigned char *p) {
    uint64_t v = 0;
    for (int k = 7; k >= 0; k--) v = v << 8 | p[k];      /* little-endian on any host */
    return (int64_t)v;
}

static void fv_fail(const char *what) {
    fv_clear_error();
    fv_err.raised = 1;
    snprintf(fv_err.message, sizeof fv_err.message, "native step image: %s", what);
}

/* The sizes this library was compiled for: model words, data words, states, outputs, key (inputs). */
FV_API void fv_shape(int64_t out[5]) {
    out[0] = FV_MODEL_WORDS; out[1] = FV_DATA_WORDS; out[2] = FV_N_STATES; out[3] = FV_N_OUTPUTS; out[4] = FV_N_KEY;
}

/* A new instance of the image file contents image[0..nbytes): one allocation holding the buffers (model
 * words then data words, contiguous: *data_buf == *model_buf + FV_MODEL_WORDS) and the relocated blob.
 * An array's memory is at (void *)(intptr_t)(*model_buf)[w] for its data word w (layout.Image.field_table).
 * NULL (and fv_last_error) if the image is malformed or made for other sizes. Free with fv_instance_free. */
FV_API void *fv_instance_new(const void *image, int64_t nbytes, int64_t **model_buf, int64_t **data_buf) {
    const unsigned char *p = (const unsigned char *)image;
    if (!p || nbytes < FV_HEADER_BYTES || memcmp(p, "FVIMAGE1", 8) != 0) { fv_fail("bad magic or truncated header"); return NULL; }
    int64_t nm = fv_read64(p + 8), nd = fv_read64(p + 16), nr = fv_read64(p + 24), nb = fv_read64(p + 32);
    if (nm != FV_MODEL_WORDS || nd != FV_DATA_WORDS) { fv_fail("buffer sizes differ from the library's (another system)"); return NULL; }
    if (nr < 0 || nb < 0 || nr > nm + nd || nb > ((int64_t)1 << 40)) { fv_fail("bad section sizes"); return NULL; }
    int64_t nw = nm + nd;
    if (nbytes != FV_HEADER_BYTES + 8 * (nw + nr) + nb) { fv_fail("file size differs from the header's"); return NULL; }
    size_t words_bytes = (size_t)(8 * nw);
    size_t blob_at = (words_bytes + FV_ALIGN - 1) / FV_ALIGN * FV_ALIGN;
    unsigned char *mem = (unsigned char *)malloc(blob_at + (size_t)nb + 2 * FV_ALIGN);
    if (!mem) { fv_fail("out of memory"); return NULL; }
    /* the instance block: [pad][words][pad][blob], words at an aligned address stored just before it */
    uintptr_t first = ((uintptr_t)mem + 2 * sizeof(int64_t) + FV_ALIGN - 1) / FV_ALIGN * FV_ALIGN;
    int64_t *words = (int64_t *)first;
    ((void **)words)[-1] = mem;
    words[-2] = nb;                        /* the blob's size, for fv_instance_blob */
    unsigned char *blob = (unsigned char *)words + blob_at;
    const unsigned char *src = p + FV_HEADER_BYTES;
    for (int64_t i = 0; i < nw; i++) words[i] = fv_read64(src + 8 * i);
    const unsigned char *rel = src + 8 * nw;
    memcpy(blob, rel + 8 * nr, (size_t)nb);
    for (int64_t k = 0; k < nr; k++) {
        int64_t w = fv_read64(rel + 8 * k);
        if (w < 0 || w >= nw || words[w] < 0 || words[w] > nb) { free(mem); fv_fail("relocation out of range"); return NULL; }
        words[w] = (int64_t)(intptr_t)(blob + words[w]);
    }
    *model_buf = words;
    *data_buf = words + nm;
    return words;
}

/* The instance's blob (the memory of every array of the model and the data): *blob and its size [bytes].
 * After relocation the buffer words never change (the values are immutable records of arrays), so the blob
 * plus the caller's own arrays is everything a run writes: what an FMU state saves and restores. */
FV_API int64_t fv_instance_blob(void *instance, unsigned char **blob) {
    int64_t *words = (int64_t *)instance;
    size_t words_bytes = (size_t)(8 * (FV_MODEL_WORDS + FV_DATA_WORDS));
    *blob = (unsigned char *)words + (words_bytes + FV_ALIGN - 1) / FV_ALIGN * FV_ALIGN;
    return words[-2];
}

FV_API void fv_instance_free(void *instance) {
    if (instance) free(((void **)instance)[-1]);
}

/* ---- 3. entry points --------------------------------------------------------------------------------- */
int64_t fv_advance_raw(int64_t *model_buf, int64_t *data_buf, double t0, double h, int64_t nsteps, double *y,
                       double *row, double *work, double *key, double *saved, int64_t *done);
int64_t fv_final_raw(int64_t *model_buf, int64_t *data_buf, double t, double *y, double *row, double *ydot);
int64_t fv_prepare_raw(int64_t *model_buf, int64_t *data_buf, double t, double h, double rack_target, double *y,
                       double *row);
int64_t fv_start_raw(const double *y_rest, const double *speed_gain, const double *spin_radius, int64_t tire_from,
                     double v0, double *y);
int64_t fv_equilibrium_raw(int64_t *model_buf, int64_t *data_buf, double x0, double mass, int64_t work,
                           int64_t *ints, double *y_rest, double *speed_gain, double *spin_radius);
int64_t fv_repartition_raw(int64_t *model_buf, int64_t *data_buf, double *y);
int64_t fv_evaluate_raw(int64_t *model_buf, int64_t *data_buf, double t, double *y, double *row, double *ydot,
                        const double *sw, int64_t n_sw, double *g, int64_t *due);
#ifdef FV_HAS_ABM4
int64_t fv_advance_abm4_raw(int64_t *model_buf, int64_t *data_buf, double t0, double h, int64_t nsteps, double *y,
                            double *row, double *hist, int64_t *ctl, double *work, double *key, double *saved,
                            int64_t fresh, int64_t *done);
#endif
#ifdef FV_HAS_BDF2
int64_t fv_advance_bdf2_raw(int64_t *model_buf, int64_t *data_buf, double t0, double h, int64_t nsteps, double *y,
                            double *row, double *jac, double *lu, int64_t *piv, double *hmat, int64_t *ctl,
                            double *work, double rtol, double atol, double *key, double *saved, int64_t fresh,
                            int64_t *done);
#endif
#ifdef FV_HAS_RK4E
int64_t fv_advance_rk4e_raw(int64_t *model_buf, int64_t *data_buf, double t0, double h, int64_t nsteps, double *y,
                            double *row, double *work, double *gw, const double *sw, int64_t n_sw, double tol,
                            int64_t max_iter, int64_t max_sub, double *stats, double *key, double *saved,
                            int64_t *done);
#endif

/* nsteps RK4 steps of h [s] from t0 [s], then the output row of the final state (integrators.rk4.rk4_advance):
 * y (FV_N_STATES) in place, row (FV_N_OUTPUTS), work (5 x FV_N_STATES, C order; work[0] the next k1), key
 * (FV_N_KEY: the system's inputs, data.inputs' memory), saved (1 + FV_N_KEY, zero it after changing y, t or
 * the system otherwise), *done the steps done. Returns 0 ok, 1 re-parameterize after *done steps, < 0 the
 * system's failure code, FV_STATUS_RAISED if the compiled code raised (fv_last_error() says what). */
FV_API int64_t fv_advance(int64_t *model_buf, int64_t *data_buf, double t0, double h, int64_t nsteps, double *y,
                          double *row, double *work, double *key, double *saved, int64_t *done) {
    fv_clear_error();
    *done = 0;
    if (!model_buf || !data_buf || !y || !row || !work || !key || !saved || nsteps < 0) {
        fv_raise("fv_advance: a null pointer or a negative step count");
        return FV_STATUS_BAD_ARGUMENT;
    }
    int64_t status = fv_advance_raw(model_buf, data_buf, t0, h, nsteps, y, row, work, key, saved, done);
    return fv_err.raised ? FV_STATUS_RAISED : status;
}

/* Evaluate and record the state y at t [s] without a step (VehicleSimulator.refresh: an external load's levers
 * about the wheel centres in row, then integrators.rk4.rk4_final): row, ydot = dy/dt. */
FV_API int64_t fv_final(int64_t *model_buf, int64_t *data_buf, double t, double *y, double *row, double *ydot) {
    fv_clear_error();
    if (!model_buf || !data_buf || !y || !row || !ydot) {
        fv_raise("fv_final: a null pointer");
        return FV_STATUS_BAD_ARGUMENT;
    }
    int64_t status = fv_final_raw(model_buf, data_buf, t, y, row, ydot);
    return fv_err.raised ? FV_STATUS_RAISED : status;
}

/* Before a communication step of h [s] from t [s] (vehicle.stepping.prepare_step): the steering rack's ramp to
 * rack_target [m], an external tire load's levers, the engine origin's rebase (y in place). Returns 1 if the
 * stepper must not reuse its last evaluation (zero saved[0]), 0 if it may, FV_STATUS_RAISED if it raised. */
FV_API int64_t fv_prepare(int64_t *model_buf, int64_t *data_buf, double t, double h, double rack_target, double *y,
                          double *row) {
    fv_clear_error();
    if (!model_buf || !data_buf || !y || !row) {
        fv_raise("fv_prepare: a null pointer");
        return FV_STATUS_BAD_ARGUMENT;
    }
    int64_t status = fv_prepare_raw(model_buf, data_buf, t, h, rack_target, y, row);
    return fv_err.raised ? FV_STATUS_RAISED : status;
}

/* The state moving at v0 [m/s] from a start table (vehicle.start.start_state): y (FV_N_STATES) from y_rest,
 * speed_gain, spin_radius (FV_N_STATES each) and the first tire state tire_from. Returns 0, or
 * FV_STATUS_BAD_ARGUMENT / FV_STATUS_RAISED. */
FV_API int64_t fv_start(const double *y_rest, const double *speed_gain, const double *spin_radius, int64_t tire_from,
                        double v0, double *y) {
    fv_clear_error();
    if (!y_rest || !speed_gain || !spin_radius || !y) {
        fv_raise("fv_start: a null pointer");
        return FV_STATUS_BAD_ARGUMENT;
    }
    int64_t status = fv_start_raw(y_rest, speed_gain, spin_radius, tire_from, v0, y);
    return fv_err.raised ? FV_STATUS_RAISED : status;
}

/* The static equilibrium on the road at x0 [m] and the start table (vehicle.equilibrium.static_equilibrium):
 * y_rest, speed_gain, spin_radius (FV_N_STATES each); mass [kg] the vehicle's; work and ints the kernel's
 * scratch (native.step.StepShape.work_sizes: float64 and int64 counts). Leaves the workspace evaluated at the
 * equilibrium. Returns 0, -1 (the chassis cannot be placed), -2 (no equilibrium: Newton's residual stayed
 * above 1e-6 m g) or FV_STATUS_RAISED. */
FV_API int64_t fv_equilibrium(int64_t *model_buf, int64_t *data_buf, double x0, double mass, double *work,
                              int64_t *ints, double *y_rest, double *speed_gain, double *spin_radius) {
    fv_clear_error();
    if (!model_buf || !data_buf || !work || !ints || !y_rest || !speed_gain || !spin_radius) {
        fv_raise("fv_equilibrium: a null pointer");
        return FV_STATUS_BAD_ARGUMENT;
    }
    int64_t status = fv_equilibrium_raw(model_buf, data_buf, x0, mass, (int64_t)(intptr_t)work, ints, y_rest,
                                        speed_gain, spin_radius);
    return fv_err.raised ? FV_STATUS_RAISED : status;
}

/* After fv_advance returned 1: new independent coordinates at the state y (vehicle.stepping.repartition_state),
 * y (FV_N_STATES) rewritten in them. The caller zeroes saved[0] and advances the steps left. Returns 0, the
 * engine's negative status (the state cannot be assembled, or Phi_z lost rank) or FV_STATUS_RAISED. */
FV_API int64_t fv_repartition(int64_t *model_buf, int64_t *data_buf, double *y) {
    fv_clear_error();
    if (!model_buf || !data_buf || !y) {
        fv_raise("fv_repartition: a null pointer");
        return FV_STATUS_BAD_ARGUMENT;
    }
    int64_t status = fv_repartition_raw(model_buf, data_buf, y);
    return fv_err.raised ? FV_STATUS_RAISED : status;
}

/* Model Exchange (native.step.evaluate_cfunc): at the state y at t [s], an external load's levers, ydot = dy/dt,
 * the switching functions g (the system's, with its switch_params sw, n_sw of them), the output row and *due = 1
 * if the origin is to be rebased. Returns the derivative's status (0, 1 a new partition is asked for, < 0 a
 * failure, FV_STATUS_RAISED). Not exported by a step library (no FV_API): the FMI layer's own. */
int64_t fv_evaluate(int64_t *model_buf, int64_t *data_buf, double t, double *y, double *row, double *ydot,
                    const double *sw, int64_t n_sw, double *g, int64_t *due) {
    fv_clear_error();
    if (!model_buf || !data_buf || !y || !row || !ydot || !sw || n_sw < 0 || !g || !due) {
        fv_raise("fv_evaluate: a null pointer or a negative count");
        return FV_STATUS_BAD_ARGUMENT;
    }
    *due = 0;
    int64_t status = fv_evaluate_raw(model_buf, data_buf, t, y, row, ydot, sw, n_sw, g, due);
    return fv_err.raised ? FV_STATUS_RAISED : status;
}

/* The other stepping methods' fv_advance (native.step.integrator_cfuncs): nsteps steps of h [s] from t0 [s] of
 * ABM4 (integrators.abm.abm_advance), BDF2 (integrators.bdf.bdf_advance) or RK4 with event location
 * (integrators.rk4e.rk4e_advance), then the output row of the final state; the status and *done as fv_advance.
 * The arrays are the method's stepper arrays (abm.abm_arrays, bdf.bdf_arrays, rk4e: work (10 x FV_N_STATES),
 * gw (4 x the system's switching functions), stats (4)); saved is FV_N_KEY long for ABM4 and BDF2 (the inputs
 * of the history), 1 + FV_N_KEY for RK4E (as fv_advance's); fresh != 0 restarts the history first (the
 * stepper's reset(); RK4E's restart is saved[0] = 0, as RK4's). sw: the system's switch_params (n_sw). Each is
 * there when the library carries the method (-DFV_HAS_ABM4, ...: native.emit.method_defines). */
#ifdef FV_HAS_ABM4
FV_API int64_t fv_advance_abm4(int64_t *model_buf, int64_t *data_buf, double t0, double h, int64_t nsteps, double *y,
                               double *row, double *hist, int64_t *ctl, double *work, double *key, double *saved,
                               int64_t fresh, int64_t *done) {
    fv_clear_error();
    *done = 0;
    if (!model_buf || !data_buf || !y || !row || !hist || !ctl || !work || !key || !saved || nsteps < 0) {
        fv_raise("fv_advance_abm4: a null pointer or a negative step count");
        return FV_STATUS_BAD_ARGUMENT;
    }
    int64_t status = fv_advance_abm4_raw(model_buf, data_buf, t0, h, nsteps, y, row, hist, ctl, work, key, saved,
                                         fresh, done);
    return fv_err.raised ? FV_STATUS_RAISED : status;
}
#endif

#ifdef FV_HAS_BDF2
FV_API int64_t fv_advance_bdf2(int64_t *model_buf, int64_t *data_buf, double t0, double h, int64_t nsteps, double *y,
                               double *row, double *jac, double *lu, int64_t *piv, double *hmat, int64_t *ctl,
                               double *work, double rtol, double atol, double *key, double *saved, int64_t fresh,
                               int64_t *done) {
    fv_clear_error();
    *done = 0;
    if (!model_buf || !data_buf || !y || !row || !jac || !lu || !piv || !hmat || !ctl || !work || !key || !saved
        || nsteps < 0) {
        fv_raise("fv_advance_bdf2: a null pointer or a negative step count");
        return FV_STATUS_BAD_ARGUMENT;
    }
    int64_t status = fv_advance_bdf2_raw(model_buf, data_buf, t0, h, nsteps, y, row, jac, lu, piv, hmat, ctl, work,
                                         rtol, atol, key, saved, fresh, done);
    return fv_err.raised ? FV_STATUS_RAISED : status;
}
#endif

#ifdef FV_HAS_RK4E
FV_API int64_t fv_advance_rk4e(int64_t *model_buf, int64_t *data_buf, double t0, double h, int64_t nsteps, double *y,
                               double *row, double *work, double *gw, const double *sw, int64_t n_sw, double tol,
                               int64_t max_iter, int64_t max_sub, double *stats, double *key, double *saved,
                               int64_t *done) {
    fv_clear_error();
    *done = 0;
    if (!model_buf || !data_buf || !y || !row || !work || !gw || !sw || n_sw < 0 || !stats || !key || !saved
        || nsteps < 0) {
        fv_raise("fv_advance_rk4e: a null pointer or a negative count");
        return FV_STATUS_BAD_ARGUMENT;
    }
    int64_t status = fv_advance_rk4e_raw(model_buf, data_buf, t0, h, nsteps, y, row, work, gw, sw, n_sw, tol, max_iter,
                                         max_sub, stats, key, saved, done);
    return fv_err.raised ? FV_STATUS_RAISED : status;
}
#endif
