/*
 * fmi2_host: a minimal FMI 2.0 Co-Simulation importer written in C, the way non-Python tools
 * (Simulink, Dymola, OMSimulator, fmuCheck, C/C++ masters) load an FMU: dlopen the binary, look up the
 * fmi2* functions, instantiate, initialize, step, save and restore the state, terminate, free, exit.
 *
 * It exists to check that the FMUs this package builds behave in such a host (above all, that the
 * process exits 0), and to compare their outputs with FMPy's (fmu_vehicle.fmi.host runs both).
 *
 * Usage:
 *   fmi2_host DIR MODEL_ID GUID STEP N [options]
 *     DIR        folder the FMU was extracted into (holds binaries/linux64/MODEL_ID.so and resources/)
 *     STEP N     N communication steps of STEP seconds from t = 0
 *   options:
 *     -r VR=VALUE           Real parameter or start value set before initialization
 *     -s VR=TEXT            String parameter set before initialization
 *     -i VR=OFF:AMP:FREQ    Real input set before every step to OFF + AMP sin(2 pi FREQ t) (t = step start)
 *     -o VR                 Real output printed (repeatable; order kept)
 *     -e K                  print a row every K steps (default 1; the last step is always printed)
 *     -g                    state check: get the FMU state at step N/2, finish the run, restore the state
 *                           (also through serialize/deserialize), run the second half again and require
 *                           bit-identical outputs
 *     -u                    dlclose the library before exiting (default: leave it loaded, as many hosts do)
 *     -l                    loggingOn = fmi2True
 * Output (stdout): "t,<vr>,<vr>..." then one row per printed step, values as %.17g.
 * Messages: the FMU's log on stderr; at a clean exit, "fmi2_host: libpython mapped: yes|no" (a native FMU
 * runs without one). Exit code: 0 ok, 2 usage, 3 the FMU returned an error, 4 state mismatch.
 *
 * Build: cc -O1 -std=c99 -I<fmpy>/c-code fmi2_host.c -o fmi2_host -ldl -lm
 *        (win64: x86_64-w64-mingw32-gcc -O1 -std=c99 -I<fmpy>/c-code fmi2_host.c -o fmi2_host.exe; it loads
 *        binaries/win64/MODEL_ID.dll, and reports python3*.dll instead of /proc/self/maps)
 */
#define _POSIX_C_SOURCE 200809L
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fmi2Functions.h"

/* the platform's dynamic loader: dlopen on Linux; LoadLibrary on Windows (cross-compiled with mingw, run under
 * wine for the native FMUs' win64 binaries) */
#ifdef _WIN32
#include <windows.h>
#define PLATFORM "win64"
#define LIB_SUFFIX ".dll"
static void *lib_open(const char *path) { return (void *)LoadLibraryA(path); }
static void *lib_symbol(void *lib, const char *name) { return (void *)(intptr_t)GetProcAddress((HMODULE)lib, name); }
static const char *lib_error(void) { return "LoadLibrary/GetProcAddress failed"; }
static void lib_close(void *lib) { FreeLibrary((HMODULE)lib); }
#else
#include <dlfcn.h>
#define PLATFORM "linux64"
#define LIB_SUFFIX ".so"
static void *lib_open(const char *path) { return dlopen(path, RTLD_NOW | RTLD_LOCAL); }
static void *lib_symbol(void *lib, const char *name) { return dlsym(lib, name); }
static const char *lib_error(void) { return dlerror(); }
static void lib_close(void *lib) { dlclose(lib); }
#endif

#define MAX_VARS 512

typedef struct {
    fmi2InstantiateTYPE *instantiate;
    fmi2FreeInstanceTYPE *freeInstance;
    fmi2SetupExperimentTYPE *setupExperiment;
    fmi2EnterInitializationModeTYPE *enterInitializationMode;
    fmi2ExitInitializationModeTYPE *exitInitializationMode;
    fmi2TerminateTYPE *terminate;
    fmi2SetRealTYPE *setReal;
    fmi2GetRealTYPE *getReal;
    fmi2SetStringTYPE *setString;
    fmi2DoStepTYPE *doStep;
    fmi2GetFMUstateTYPE *getFMUstate;
    fmi2SetFMUstateTYPE *setFMUstate;
    fmi2FreeFMUstateTYPE *freeFMUstate;
    fmi2SerializedFMUstateSizeTYPE *serializedFMUstateSize;
    fmi2SerializeFMUstateTYPE *serializeFMUstate;
    fmi2DeSerializeFMUstateTYPE *deSerializeFMUstate;
} Api;

typedef struct {
    fmi2ValueReference vr;
    double off, amp, freq;
} Input;

static void logger(fmi2ComponentEnvironment env, fmi2String instance, fmi2Status status, fmi2String category,
                   fmi2String message, ...) {
    (void)env;
    fprintf(stderr, "[%s] %s (status %d): %s\n", category ? category : "", instance ? instance : "", (int)status,
            message ? message : "");
}

static int fail(const char *what, fmi2Status status) {
    fprintf(stderr, "fmi2_host: %s returned status %d\n", what, (int)status);
    return 3;
}

static void *symbol(void *lib, const char *name) {
    void *f = lib_symbol(lib, name);
    if (!f) fprintf(stderr, "fmi2_host: symbol %s not found: %s\n", name, lib_error());
    return f;
}

static int parse_vr(const char *text, fmi2ValueReference *vr, const char **rest) {
    char *end;
    unsigned long v = strtoul(text, &end, 10);
    if (end == text || *end != '=') return 0;
    *vr = (fmi2ValueReference)v;
    *rest = end + 1;
    return 1;
}

/* The sine of the sinusoidal inputs: fmu_vehicle/elementary.py's sin, the same IEEE operations in the same
   order (C99 mode: no contraction into FMA), so the inputs are the same bits on Linux, under wine and in the
   Python harness (fmi/hosts.py Inputs.value), which the C runtime's sin is not. Arguments of 2**32 and more
   (never an input's) fall back to the C runtime. */
static double fv_two_sum(double a, double b, double *e) {
    double s = a + b, bb = s - a;
    *e = (a - (s - bb)) + (b - bb);
    return s;
}

static double fv_sin_k(double x, double y) {
    double z = x * x, z2 = z * z;
    double p = (0.008333333333333331 + z * -0.00019841269841265065) + z2 * (2.7557319219339167e-06
               + z * -2.5052106232447578e-08) + z2 * z2 * (1.6058531618986147e-10 + z * -7.586697117706918e-13);
    return x + ((y - 0.5 * z * y) + z * x * (-0.16666666666666666 + z * p));
}

static double fv_cos_k(double x, double y) {
    double z = x * x, z2 = z * z;
    double q = ((0.041666666666666664 + z * -0.0013888888888888887) + z2 * (2.4801587301584645e-05
               + z * -2.7557319221402824e-07)) + z2 * z2 * ((2.087675579108042e-09 + z * -1.1470460887609959e-11)
               + z2 * 4.7458719020432915e-14);
    double hz = 0.5 * z, w = 1.0 - hz;
    return w + (((1.0 - w) - hz) + (z * z * q - x * y));
}

static double fv_sin_quadrant(long long k, double rh, double rl) {
    int n = (int)(k & 3);
    if (n == 0) return fv_sin_k(rh, rl);
    if (n == 1) return fv_cos_k(rh, rl);
    if (n == 2) return -fv_sin_k(rh, rl);
    return -fv_cos_k(rh, rl);
}

static double fv_sin(double x) {
    double ax = fabs(x), k, hi, lo, e, y, rh, rl;
    if (ax <= 0.7853981633974483) return ax < 7.450580596923828e-09 ? x : fv_sin_k(x, 0.0);
    if (!(ax < INFINITY)) return x - x;
    if (ax >= 4294967296.0) return sin(x);
    if (ax < 1.0e6) {                       /* pi/2 in two pieces, k rounded with 1.5 * 2**52 */
        double r, w;
        k = (x * 0.6366197723675814 + 6755399441055744.0) - 6755399441055744.0;
        r = x - k * 1.5707963267341256;
        w = k * 6.077100506506192e-11;
        y = r - w;
        if (fabs(y) >= fabs(k) * 2.5e-08) return fv_sin_quadrant((long long)k, y, (r - y) - w);
    }
    k = (double)(long long)(x * 0.6366197723675814 + copysign(0.5, x));
    hi = x - k * 1.570796012878418;
    y = fv_two_sum(hi, -(k * 3.139164164167596e-07), &e);
    if (ax < 2048.0 && fabs(y) >= 9.5367431640625e-07) {
        lo = e - k * 6.223372171896613e-14;
        rh = y + lo;
        rl = (y - rh) + lo;
    } else {
        hi = y;
        lo = e;
        hi = fv_two_sum(hi, -(k * 6.22337468017542e-14), &e); lo += e;
        hi = fv_two_sum(hi, -(k * -2.5082791584901525e-20), &e); lo += e;
        hi = fv_two_sum(hi, -(k * 3.521561362568105e-27), &e); lo += e;
        hi = fv_two_sum(hi, -(k * -1.4973851116957393e-33), &e); lo += e;
        lo -= k * 2.0683656956646287e-40;
        rh = fv_two_sum(hi, lo, &rl);
    }
    return fv_sin_quadrant((long long)k, rh, rl);
}

static void set_inputs(const Api *api, fmi2Component c, const Input *in, int n, double t) {
    for (int k = 0; k < n; ++k) {
        fmi2Real u = in[k].off + in[k].amp * fv_sin(6.283185307179586 * in[k].freq * t);
        api->setReal(c, &in[k].vr, 1, &u);
    }
}

/* Steps first..last-1 of n; prints (when print is set) every K-th step and step n; leaves the last outputs in
   last_row. */
static int run_steps(const Api *api, fmi2Component c, const Input *in, int n_in, const fmi2ValueReference *outs,
                     int n_out, double step, int first, int last, int n, int every, int print, double *last_row) {
    for (int i = first; i < last; ++i) {
        double t = i * step;
        set_inputs(api, c, in, n_in, t);
        fmi2Status st = api->doStep(c, t, step, fmi2True);
        if (st != fmi2OK) return fail("fmi2DoStep", st);
        if (n_out > 0) {
            st = api->getReal(c, outs, (size_t)n_out, last_row);
            if (st != fmi2OK) return fail("fmi2GetReal", st);
        }
        if (print && ((i + 1) % every == 0 || i + 1 == n)) {
            printf("%.17g", (i + 1) * step);
            for (int k = 0; k < n_out; ++k) printf(",%.17g", last_row[k]);
            printf("\n");
        }
    }
    return 0;
}

/* 1 if a libpython is mapped into this process (/proc/self/maps): a native FMU must not need one */
static int python_mapped(void) {
#ifdef _WIN32
    const char *names[] = {"python3.dll", "python310.dll", "python311.dll", "python312.dll", "python313.dll"};
    for (size_t k = 0; k < sizeof names / sizeof names[0]; k++)
        if (GetModuleHandleA(names[k])) return 1;
    return 0;
#endif
    FILE *f = fopen("/proc/self/maps", "r");
    char line[4096];
    int found = 0;
    if (!f) return -1;
    while (!found && fgets(line, sizeof line, f)) found = strstr(line, "libpython") != NULL;
    fclose(f);
    return found;
}

int main(int argc, char **argv) {
    if (argc < 6) {
        fprintf(stderr, "usage: fmi2_host DIR MODEL_ID GUID STEP N [-r VR=V] [-s VR=S] [-i VR=OFF:AMP:FREQ] "
                        "[-o VR] [-e K] [-g] [-u] [-l]\n");
        return 2;
    }
    const char *dir = argv[1], *model = argv[2], *guid = argv[3];
    double step = atof(argv[4]);
    int n = atoi(argv[5]);
    fmi2ValueReference rvr[MAX_VARS], svr[MAX_VARS], outs[MAX_VARS];
    double rval[MAX_VARS];
    const char *sval[MAX_VARS];
    Input in[MAX_VARS];
    int n_r = 0, n_s = 0, n_in = 0, n_out = 0, every = 1, state_check = 0, unload = 0;
    fmi2Boolean logging = fmi2False;
    for (int a = 6; a < argc; ++a) {
        const char *opt = argv[a], *rest;
        int has_arg = a + 1 < argc;
        if (!strcmp(opt, "-g")) { state_check = 1; continue; }
        if (!strcmp(opt, "-u")) { unload = 1; continue; }
        if (!strcmp(opt, "-l")) { logging = fmi2True; continue; }
        if (!has_arg || n_r >= MAX_VARS || n_s >= MAX_VARS || n_in >= MAX_VARS || n_out >= MAX_VARS) {
            fprintf(stderr, "fmi2_host: bad option %s\n", opt);
            return 2;
        }
        const char *arg = argv[++a];
        if (!strcmp(opt, "-r") && parse_vr(arg, &rvr[n_r], &rest)) {
            rval[n_r++] = atof(rest);
        } else if (!strcmp(opt, "-s") && parse_vr(arg, &svr[n_s], &rest)) {
            sval[n_s++] = rest;
        } else if (!strcmp(opt, "-i") && parse_vr(arg, &in[n_in].vr, &rest) &&
                   sscanf(rest, "%lf:%lf:%lf", &in[n_in].off, &in[n_in].amp, &in[n_in].freq) == 3) {
            n_in++;
        } else if (!strcmp(opt, "-o")) {
            outs[n_out++] = (fmi2ValueReference)strtoul(arg, NULL, 10);
        } else if (!strcmp(opt, "-e")) {
            every = atoi(arg) > 0 ? atoi(arg) : 1;
        } else {
            fprintf(stderr, "fmi2_host: bad option %s %s\n", opt, arg);
            return 2;
        }
    }

    char path[4096], resources[4200];
    snprintf(path, sizeof path, "%s/binaries/" PLATFORM "/%s" LIB_SUFFIX, dir, model);
    snprintf(resources, sizeof resources, "file://%s/resources", dir);
    void *lib = lib_open(path);
    if (!lib) {
        fprintf(stderr, "fmi2_host: loading %s failed: %s\n", path, lib_error());
        return 3;
    }
    Api api;
    void **slots = (void **)&api;
    const char *names[] = {"fmi2Instantiate", "fmi2FreeInstance", "fmi2SetupExperiment",
                           "fmi2EnterInitializationMode", "fmi2ExitInitializationMode", "fmi2Terminate",
                           "fmi2SetReal", "fmi2GetReal", "fmi2SetString", "fmi2DoStep", "fmi2GetFMUstate",
                           "fmi2SetFMUstate", "fmi2FreeFMUstate", "fmi2SerializedFMUstateSize",
                           "fmi2SerializeFMUstate", "fmi2DeSerializeFMUstate"};
    for (size_t k = 0; k < sizeof names / sizeof names[0]; ++k) {
        slots[k] = symbol(lib, names[k]);
        if (!slots[k]) return 3;
    }

    fmi2CallbackFunctions cb = {logger, calloc, free, NULL, NULL};
    fmi2Component c = api.instantiate("host", fmi2CoSimulation, guid, resources, &cb, fmi2False, logging);
    if (!c) {
        fprintf(stderr, "fmi2_host: fmi2Instantiate failed\n");
        return 3;
    }
    fmi2Status st;
    if ((st = api.setupExperiment(c, fmi2False, 0.0, 0.0, fmi2False, 0.0)) != fmi2OK)
        return fail("fmi2SetupExperiment", st);
    for (int k = 0; k < n_r; ++k)
        if ((st = api.setReal(c, &rvr[k], 1, &rval[k])) != fmi2OK) return fail("fmi2SetReal", st);
    for (int k = 0; k < n_s; ++k)
        if ((st = api.setString(c, &svr[k], 1, &sval[k])) != fmi2OK) return fail("fmi2SetString", st);
    if ((st = api.enterInitializationMode(c)) != fmi2OK) return fail("fmi2EnterInitializationMode", st);
    set_inputs(&api, c, in, n_in, 0.0);
    if ((st = api.exitInitializationMode(c)) != fmi2OK) return fail("fmi2ExitInitializationMode", st);

    double row[MAX_VARS], first_pass[MAX_VARS];
    printf("t");
    for (int k = 0; k < n_out; ++k) printf(",%u", (unsigned)outs[k]);
    printf("\n");
    if (n_out > 0) {
        if ((st = api.getReal(c, outs, (size_t)n_out, row)) != fmi2OK) return fail("fmi2GetReal", st);
        printf("0");
        for (int k = 0; k < n_out; ++k) printf(",%.17g", row[k]);
        printf("\n");
    }
    int rc, half = n / 2;
    if (!state_check) {
        if ((rc = run_steps(&api, c, in, n_in, outs, n_out, step, 0, n, n, every, 1, row))) return rc;
    } else {
        if ((rc = run_steps(&api, c, in, n_in, outs, n_out, step, 0, half, n, every, 1, row))) return rc;
        fmi2FMUstate s = NULL;
        if ((st = api.getFMUstate(c, &s)) != fmi2OK) return fail("fmi2GetFMUstate", st);
        size_t size = 0;
        if ((st = api.serializedFMUstateSize(c, s, &size)) != fmi2OK) return fail("fmi2SerializedFMUstateSize", st);
        fmi2Byte *bytes = malloc(size);
        if ((st = api.serializeFMUstate(c, s, bytes, size)) != fmi2OK) return fail("fmi2SerializeFMUstate", st);
        if ((rc = run_steps(&api, c, in, n_in, outs, n_out, step, half, n, n, every, 1, first_pass))) return rc;
        /* rollback through the state object, then through the serialized bytes */
        for (int pass = 0; pass < 2; ++pass) {
            if (pass == 0) {
                if ((st = api.setFMUstate(c, s)) != fmi2OK) return fail("fmi2SetFMUstate", st);
            } else {
                fmi2FMUstate s2 = NULL;
                if ((st = api.deSerializeFMUstate(c, bytes, size, &s2)) != fmi2OK)
                    return fail("fmi2DeSerializeFMUstate", st);
                if ((st = api.setFMUstate(c, s2)) != fmi2OK) return fail("fmi2SetFMUstate", st);
                if ((st = api.freeFMUstate(c, &s2)) != fmi2OK) return fail("fmi2FreeFMUstate", st);
            }
            if ((rc = run_steps(&api, c, in, n_in, outs, n_out, step, half, n, n, every, 0, row))) return rc;
            if (n_out > 0 && memcmp(row, first_pass, sizeof(double) * (size_t)n_out) != 0) {
                fprintf(stderr, "fmi2_host: outputs after restoring the state (%s) differ from the first pass\n",
                        pass == 0 ? "setFMUstate" : "deSerializeFMUstate");
                return 4;
            }
        }
        fprintf(stderr, "fmi2_host: state restore bit-identical\n");
        free(bytes);
        if ((st = api.freeFMUstate(c, &s)) != fmi2OK) return fail("fmi2FreeFMUstate", st);
    }
    if ((st = api.terminate(c)) != fmi2OK) return fail("fmi2Terminate", st);
    api.freeInstance(c);
    fflush(stdout);
    fprintf(stderr, "fmi2_host: libpython mapped: %s\n", python_mapped() ? "yes" : "no");
    if (unload) lib_close(lib);
    return 0;
}
