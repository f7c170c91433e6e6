/* The FMI 2.0 Co-Simulation layer of a native block FMU (fmu_vehicle.native.block): the fmi2* functions over
 * a block's two compiled kernels (fmu_vehicle.fmi.block)
 *
 *   fv_block_init_raw(p, s, u, y, t0)      the start at the FMU's start time t0 [s]
 *   fv_block_step_raw(p, s, u, y, t, h)    the communication step [t, t + h] [s]
 *
 * over the instance's parameter array p, state s, inputs u and outputs y, exactly as the Python FMU's
 * BlockSlave calls the same kernels: no formula lives here. The variable table (value reference = position),
 * the export's parameter array and the sizes come from the generated header fv_block_config.h, made from the
 * Python FMU's Var table. A Real parameter the kernels read from p is settable until initialization ends (range
 * checked, written into p; at any time if its variability is tunable); every other parameter is fixed at export (its own value accepted, another refused by
 * name). Inputs are range checked when set (NaN and infinities refused), outputs change in doStep only (and in
 * initialization mode, where they are the initial outputs for the parameters and inputs set so far).
 *
 * Part 1 of runtime.c (the stand-ins for numba's error paths) is included: a kernel's raised exception arrives
 * as fv_err.raised and its message.
 */
#define FV_ERRORS_ONLY
#include "runtime.c"

#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fmi2_types.h"

int64_t fv_block_init_raw(double *p, double *s, double *u, double *y, double t0);
int64_t fv_block_step_raw(double *p, double *s, double *u, double *y, double t, double h);

enum { T_REAL, T_INTEGER, T_BOOLEAN, T_STRING };
enum {
    K_OUTPUT,      /* output: y[index] (an Integer output holds a whole number there) */
    K_INPUT,       /* Real input: u[index] */
    K_PARAMETER,   /* Real parameter the kernels read at p[index]: settable until initialization ends */
    K_FIXED,       /* a parameter fixed at export (any type): start, or string */
    K_TUNABLE      /* Real parameter of variability tunable the kernels read at p[index]: settable at any time */
};
#define IN_P(kind) ((kind) == K_PARAMETER || (kind) == K_TUNABLE)
typedef struct {
    int type, kind, index;
    double start, min, max;   /* Real/Integer/Boolean start value and bounds */
    const char *string;       /* String value */
    const char *name;
} fv_var;

#include "fv_block_config.h"
/* defines FV_MODEL_IDENTIFIER, FV_GUID, FV_N_P, FV_N_S, FV_N_U, FV_N_Y (the arrays' lengths, each array allocated
 * with at least one element), FV_P0[] (the parameter array at export), FV_N_VARS and FV_VARS[], FV_STEP_VR (the
 * value reference of the parameter holding the internal step [s], -1 if none) and FV_MAX_SUBSTEPS (the Python
 * FMU's SlaveBase.MAX_SUBSTEPS: a doStep takes at most this many internal steps) */

#define ALLOC(n) ((n) > 0 ? (n) : 1)
enum { S_INSTANTIATED, S_INIT, S_STEPPING, S_FAILED, S_TERMINATED };

typedef struct {
    char *name;
    fmi2CallbackLogger logger;
    fmi2ComponentEnvironment env;
    int logging, state;
    double t, start_time;           /* the FMU's time and start time [s] */
    double p[ALLOC(FV_N_P)], s[ALLOC(FV_N_S)], u[ALLOC(FV_N_U)], y[ALLOC(FV_N_Y)];
} Comp;

static void logf_(Comp *c, fmi2Status status, const char *fmt, ...) {
    if (!c || !c->logger || (status == fmi2OK && !c->logging)) return;
    char msg[1200], escaped[2400];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    size_t k = 0;                   /* the logger takes the message as its format: '%' doubled */
    for (const char *q = msg; *q && k < sizeof escaped - 2; q++) {
        if (*q == '%') escaped[k++] = '%';
        escaped[k++] = *q;
    }
    escaped[k] = 0;
    c->logger(c->env, c->name, status, status == fmi2OK ? "logAll" : status == fmi2Discard ? "logStatusDiscard"
              : "logStatusError", escaped);
}

#define FAIL(c, status, ...) (logf_((c), (status), __VA_ARGS__), (status))

static const fv_var *lookup(Comp *c, fmi2ValueReference vr, int type, const char *fn) {
    if (vr >= FV_N_VARS || FV_VARS[vr].type != type) {
        logf_(c, fmi2Error, "%s: value reference %u is not a variable of this type", fn, vr);
        return NULL;
    }
    return &FV_VARS[vr];
}

static void start_values(Comp *c) {
    memset(c->p, 0, sizeof c->p);
    memset(c->s, 0, sizeof c->s);
    memset(c->u, 0, sizeof c->u);
    memset(c->y, 0, sizeof c->y);
    for (int i = 0; i < FV_N_P; i++) c->p[i] = FV_P0[i];
    for (int i = 0; i < FV_N_VARS; i++)
        if (FV_VARS[i].kind == K_INPUT) c->u[FV_VARS[i].index] = FV_VARS[i].start;
    c->t = c->start_time = 0.0;
}

/* the first output that is not finite, else NULL */
static const fv_var *non_finite_output(const double *y) {
    for (int i = 0; i < FV_N_VARS; i++)
        if (FV_VARS[i].kind == K_OUTPUT && !isfinite(y[FV_VARS[i].index])) return &FV_VARS[i];
    return NULL;
}

/* the kernel's status, or FV_STATUS_RAISED if it raised (fv_last_error() says what) */
static int64_t run_init(Comp *c) {
    fv_clear_error();
    int64_t st = fv_block_init_raw(c->p, c->s, c->u, c->y, c->start_time);
    return fv_err.raised ? FV_STATUS_RAISED : st;
}

/* ---- inquiry, instantiation, initialization ------------------------------------------------------------- */
FMI_API const char *fmi2GetTypesPlatform(void) { return "default"; }
FMI_API const char *fmi2GetVersion(void) { return "2.0"; }

FMI_API fmi2Component fmi2Instantiate(fmi2String instanceName, fmi2Type fmuType, fmi2String fmuGUID,
                                      fmi2String fmuResourceLocation, const fmi2CallbackFunctions *functions,
                                      fmi2Boolean visible, fmi2Boolean loggingOn) {
    (void)visible; (void)fmuResourceLocation;
    Comp tmp = {0};
    tmp.name = (char *)(instanceName ? instanceName : "?");
    tmp.logger = functions ? functions->logger : NULL;
    tmp.env = functions ? functions->componentEnvironment : NULL;
    if (fmuType != fmi2CoSimulation) { logf_(&tmp, fmi2Error, "fmi2Instantiate: this FMU is Co-Simulation only"); return NULL; }
    if (!fmuGUID || strcmp(fmuGUID, FV_GUID) != 0) {
        logf_(&tmp, fmi2Error, "fmi2Instantiate: GUID %s is not this FMU's %s", fmuGUID ? fmuGUID : "(null)", FV_GUID);
        return NULL;
    }
    Comp *c = (Comp *)calloc(1, sizeof(Comp));
    if (!c) return NULL;
    *c = tmp;
    c->name = (char *)malloc(strlen(tmp.name) + 1);
    if (c->name) strcpy(c->name, tmp.name);
    c->logging = loggingOn;
    start_values(c);
    c->state = S_INSTANTIATED;
    return c;
}

FMI_API void fmi2FreeInstance(fmi2Component comp) {
    Comp *c = (Comp *)comp;
    if (!c) return;
    free(c->name);
    free(c);
}

FMI_API fmi2Status fmi2SetDebugLogging(fmi2Component comp, fmi2Boolean on, size_t n, const fmi2String cats[]) {
    (void)n; (void)cats;
    if (!comp) return fmi2Error;
    ((Comp *)comp)->logging = on;
    return fmi2OK;
}

FMI_API fmi2Status fmi2SetupExperiment(fmi2Component comp, fmi2Boolean tolDefined, fmi2Real tol, fmi2Real start,
                                       fmi2Boolean stopDefined, fmi2Real stop) {
    (void)tolDefined; (void)tol; (void)stopDefined; (void)stop;
    Comp *c = (Comp *)comp;
    if (!c) return fmi2Error;
    if (c->state != S_INSTANTIATED) return FAIL(c, fmi2Error, "fmi2SetupExperiment: only before initialization");
    if (!isfinite(start)) return FAIL(c, fmi2Error, "fmi2SetupExperiment: startTime %g is not finite", start);
    c->t = c->start_time = start;
    return fmi2OK;
}

FMI_API fmi2Status fmi2EnterInitializationMode(fmi2Component comp) {
    Comp *c = (Comp *)comp;
    if (!c) return fmi2Error;
    if (c->state != S_INSTANTIATED) return FAIL(c, fmi2Error, "fmi2EnterInitializationMode: called twice");
    c->state = S_INIT;
    return fmi2OK;
}

FMI_API fmi2Status fmi2ExitInitializationMode(fmi2Component comp) {
    Comp *c = (Comp *)comp;
    if (!c) return fmi2Error;
    if (c->state != S_INIT) return FAIL(c, fmi2Error, "fmi2ExitInitializationMode: not in initialization mode");
    int64_t st = run_init(c);
    const fv_var *bad = st == 0 ? non_finite_output(c->y) : NULL;
    if (st != 0 || bad) {
        c->state = S_FAILED;
        if (bad) return FAIL(c, fmi2Error, "initialization of %s: initial output '%s' = %g is not finite (check the "
                             "parameters)", FV_MODEL_IDENTIFIER, bad->name, c->y[bad->index]);
        return FAIL(c, fmi2Error, "initialization of %s failed (status %lld) %s", FV_MODEL_IDENTIFIER, (long long)st,
                    fv_last_error());
    }
    c->state = S_STEPPING;
    return fmi2OK;
}

FMI_API fmi2Status fmi2Terminate(fmi2Component comp) {
    if (!comp) return fmi2Error;
    ((Comp *)comp)->state = S_TERMINATED;
    return fmi2OK;
}

FMI_API fmi2Status fmi2Reset(fmi2Component comp) {
    Comp *c = (Comp *)comp;
    if (!c) return fmi2Error;
    start_values(c);
    c->state = S_INSTANTIATED;
    return fmi2OK;
}

/* ---- get / set ------------------------------------------------------------------------------------------- */
static double number(const Comp *c, const fv_var *v) {
    switch (v->kind) {
    case K_OUTPUT: return c->y[v->index];
    case K_INPUT: return c->u[v->index];
    case K_PARAMETER:
    case K_TUNABLE: return c->p[v->index];
    default: return v->start;
    }
}

/* In initialization mode the outputs a master reads (and hands to other FMUs) are the initial outputs for the
 * parameters and inputs set so far, as fmi2ExitInitializationMode computes them (which reports a failure). */
static void initial_outputs(Comp *c) {
    if (c->state == S_INIT) run_init(c);
}

FMI_API fmi2Status fmi2GetReal(fmi2Component comp, const fmi2ValueReference vr[], size_t nvr, fmi2Real value[]) {
    Comp *c = (Comp *)comp;
    if (!c) return fmi2Error;
    initial_outputs(c);
    for (size_t i = 0; i < nvr; i++) {
        const fv_var *v = lookup(c, vr[i], T_REAL, "fmi2GetReal");
        if (!v) return fmi2Error;
        value[i] = number(c, v);
    }
    return fmi2OK;
}

FMI_API fmi2Status fmi2GetInteger(fmi2Component comp, const fmi2ValueReference vr[], size_t nvr, fmi2Integer value[]) {
    Comp *c = (Comp *)comp;
    if (!c) return fmi2Error;
    initial_outputs(c);
    for (size_t i = 0; i < nvr; i++) {
        const fv_var *v = lookup(c, vr[i], T_INTEGER, "fmi2GetInteger");
        if (!v) return fmi2Error;
        value[i] = (fmi2Integer)number(c, v);
    }
    return fmi2OK;
}

FMI_API fmi2Status fmi2GetBoolean(fmi2Component comp, const fmi2ValueReference vr[], size_t nvr, fmi2Boolean value[]) {
    Comp *c = (Comp *)comp;
    if (!c) return fmi2Error;
    initial_outputs(c);
    for (size_t i = 0; i < nvr; i++) {
        const fv_var *v = lookup(c, vr[i], T_BOOLEAN, "fmi2GetBoolean");
        if (!v) return fmi2Error;
        value[i] = number(c, v) != 0.0;
    }
    return fmi2OK;
}

FMI_API fmi2Status fmi2GetString(fmi2Component comp, const fmi2ValueReference vr[], size_t nvr, fmi2String value[]) {
    Comp *c = (Comp *)comp;
    if (!c) return fmi2Error;
    for (size_t i = 0; i < nvr; i++) {
        const fv_var *v = lookup(c, vr[i], T_STRING, "fmi2GetString");
        if (!v) return fmi2Error;
        value[i] = v->string;
    }
    return fmi2OK;
}

/* Why v may not take x now (NULL: it may), in the message buffer. Every value of a call is checked before any is
 * written. A parameter fixed at export takes its own value (hosts set every parameter), no other. */
static const char *refusal(const Comp *c, const fv_var *v, double x, const char *text, char *msg, size_t n) {
    if (v->kind == K_OUTPUT) { snprintf(msg, n, "'%s' is an output", v->name); return msg; }
    if (c->state == S_TERMINATED || c->state == S_FAILED) {
        snprintf(msg, n, "'%s': the instance is %s", v->name, c->state == S_FAILED ? "failed" : "terminated");
        return msg;
    }
    if (v->kind == K_FIXED) {
        int same = v->type == T_STRING ? (text && strcmp(text, v->string) == 0) : x == v->start;
        if (same) return NULL;
        if (v->type == T_STRING)
            snprintf(msg, n, "parameter '%s' is fixed at export ('%s') in this native FMU: export it again with --set "
                     "%s=<value>", v->name, v->string, v->name);
        else
            snprintf(msg, n, "parameter '%s' is fixed at export (%.17g) in this native FMU: export it again with --set "
                     "%s=<value>", v->name, v->start, v->name);
        return msg;
    }
    if (v->kind == K_PARAMETER && c->state != S_INSTANTIATED && c->state != S_INIT) {
        snprintf(msg, n, "parameter '%s' can only be set before initialization ends", v->name);
        return msg;
    }
    if (!isfinite(x)) { snprintf(msg, n, "%s = %g is not finite", v->name, x); return msg; }
    if (!(x >= v->min && x <= v->max)) {
        snprintf(msg, n, "%s = %.17g is outside its range [%g, %g]", v->name, x, v->min, v->max);
        return msg;
    }
    return NULL;
}

/* set numbers (Real, or Integer/Boolean as doubles) or strings, all checked first */
static fmi2Status set_values(Comp *c, const fmi2ValueReference vr[], size_t nvr, int type, const char *fn,
                             const double *numbers, const fmi2String *strings) {
    if (!c) return fmi2Error;
    char msg[600];
    for (size_t i = 0; i < nvr; i++) {
        const fv_var *v = lookup(c, vr[i], type, fn);
        if (!v) return fmi2Error;
        const char *why = refusal(c, v, numbers ? numbers[i] : 0.0, strings ? strings[i] : NULL, msg, sizeof msg);
        if (why) return FAIL(c, fmi2Error, "%s: %s", fn, why);
    }
    for (size_t i = 0; numbers && i < nvr; i++) {
        const fv_var *v = &FV_VARS[vr[i]];
        if (v->kind == K_INPUT) c->u[v->index] = numbers[i];
        else if (IN_P(v->kind)) c->p[v->index] = numbers[i];
    }
    return fmi2OK;
}

FMI_API fmi2Status fmi2SetReal(fmi2Component comp, const fmi2ValueReference vr[], size_t nvr, const fmi2Real value[]) {
    return set_values((Comp *)comp, vr, nvr, T_REAL, "fmi2SetReal", value, NULL);
}

static fmi2Status set_integers(fmi2Component comp, const fmi2ValueReference vr[], size_t nvr, const int *value,
                               int type, const char *fn) {
    double numbers[64];
    for (size_t start = 0; start < nvr; start += 64) {       /* in chunks: no allocation */
        size_t n = nvr - start < 64 ? nvr - start : 64;
        for (size_t i = 0; i < n; i++) numbers[i] = type == T_BOOLEAN ? (value[start + i] != 0) : value[start + i];
        fmi2Status st = set_values((Comp *)comp, vr + start, n, type, fn, numbers, NULL);
        if (st != fmi2OK) return st;
    }
    return fmi2OK;
}

FMI_API fmi2Status fmi2SetInteger(fmi2Component comp, const fmi2ValueReference vr[], size_t nvr, const fmi2Integer value[]) {
    return set_integers(comp, vr, nvr, value, T_INTEGER, "fmi2SetInteger");
}

FMI_API fmi2Status fmi2SetBoolean(fmi2Component comp, const fmi2ValueReference vr[], size_t nvr, const fmi2Boolean value[]) {
    return set_integers(comp, vr, nvr, value, T_BOOLEAN, "fmi2SetBoolean");
}

FMI_API fmi2Status fmi2SetString(fmi2Component comp, const fmi2ValueReference vr[], size_t nvr, const fmi2String value[]) {
    return set_values((Comp *)comp, vr, nvr, T_STRING, "fmi2SetString", NULL, value);
}

/* ---- stepping -------------------------------------------------------------------------------------------- */
FMI_API fmi2Status fmi2DoStep(fmi2Component comp, fmi2Real currentCommunicationPoint, fmi2Real h,
                              fmi2Boolean noSetFMUStatePriorToCurrentPoint) {
    (void)noSetFMUStatePriorToCurrentPoint;
    Comp *c = (Comp *)comp;
    if (!c) return fmi2Error;
    if (c->state != S_STEPPING)
        return FAIL(c, fmi2Error, "fmi2DoStep: the instance is %s", c->state == S_FAILED ? "failed (a step failed)"
                    : c->state == S_TERMINATED ? "terminated" : "not initialized");
    if (!(h > 0.0) || !isfinite(h))
        return FAIL(c, fmi2Error, "fmi2DoStep: communicationStepSize %g must be finite and > 0", h);
    /* written so that a NaN communication point fails the comparison */
    if (!(fabs(currentCommunicationPoint - c->t) <= 1e-9 * fmax(1.0, fabs(c->t))))
        return FAIL(c, fmi2Error, "fmi2DoStep: currentCommunicationPoint %.17g is not the FMU's time %.17g",
                    currentCommunicationPoint, c->t);
    if (FV_STEP_VR >= 0) {      /* the step budget: refused before anything runs, the instance unchanged */
        const fv_var *v = &FV_VARS[FV_STEP_VR];
        double dt = number(c, v);
        if (!(h <= (double)FV_MAX_SUBSTEPS * dt))
            return FAIL(c, fmi2Error, "fmi2DoStep: communicationStepSize %g s needs %.3g internal steps of %s = %g s, "
                        "more than the limit of %d per doStep; use communication steps <= %g s", h, h / dt, v->name,
                        dt, FV_MAX_SUBSTEPS, (double)FV_MAX_SUBSTEPS * dt);
    }
    double s0[ALLOC(FV_N_S)], y0[ALLOC(FV_N_Y)];
    memcpy(s0, c->s, sizeof s0);
    memcpy(y0, c->y, sizeof y0);
    fv_clear_error();
    int64_t st = fv_block_step_raw(c->p, c->s, c->u, c->y, currentCommunicationPoint, h);
    if (fv_err.raised) st = FV_STATUS_RAISED;
    const fv_var *bad = st == 0 ? non_finite_output(c->y) : NULL;
    if (st != 0 || bad) {       /* the outputs and the state of the step's start; the instance refuses to go on */
        double value = bad ? c->y[bad->index] : 0.0;
        memcpy(c->s, s0, sizeof s0);
        memcpy(c->y, y0, sizeof y0);
        c->state = S_FAILED;
        if (bad) return FAIL(c, fmi2Discard, "fmi2DoStep(t = %.17g, h = %g): output '%s' became %g; the outputs are "
                             "those at t, and the instance refuses to step until a state is restored",
                             currentCommunicationPoint, h, bad->name, value);
        return FAIL(c, fmi2Discard, "fmi2DoStep(t = %.17g, h = %g): the %s model failed (status %lld) %s",
                    currentCommunicationPoint, h, FV_MODEL_IDENTIFIER, (long long)st, fv_last_error());
    }
    c->t = currentCommunicationPoint + h;       /* the master's time is taken, as the Python FMU does */
    return fmi2OK;
}

FMI_API fmi2Status fmi2CancelStep(fmi2Component comp) { (void)comp; return fmi2Error; }

FMI_API fmi2Status fmi2GetStatus(fmi2Component comp, const fmi2StatusKind s, fmi2Status *value) {
    (void)s;
    if (!comp || !value) return fmi2Error;
    *value = ((Comp *)comp)->state == S_FAILED ? fmi2Discard : fmi2OK;
    return fmi2OK;
}

FMI_API fmi2Status fmi2GetRealStatus(fmi2Component comp, const fmi2StatusKind s, fmi2Real *value) {
    Comp *c = (Comp *)comp;
    if (!c || !value || s != fmi2LastSuccessfulTime) return fmi2Discard;
    *value = c->t;
    return fmi2OK;
}

FMI_API fmi2Status fmi2GetIntegerStatus(fmi2Component comp, const fmi2StatusKind s, fmi2Integer *value) {
    (void)comp; (void)s; (void)value;
    return fmi2Discard;
}

FMI_API fmi2Status fmi2GetBooleanStatus(fmi2Component comp, const fmi2StatusKind s, fmi2Boolean *value) {
    Comp *c = (Comp *)comp;
    if (!c || !value || s != fmi2Terminated) return fmi2Discard;
    *value = c->state == S_FAILED;
    return fmi2OK;
}

FMI_API fmi2Status fmi2GetStringStatus(fmi2Component comp, const fmi2StatusKind s, fmi2String *value) {
    (void)comp; (void)s; (void)value;
    return fmi2Discard;
}

FMI_API fmi2Status fmi2SetRealInputDerivatives(fmi2Component comp, const fmi2ValueReference vr[], size_t nvr,
                                               const fmi2Integer order[], const fmi2Real value[]) {
    (void)vr; (void)nvr; (void)order; (void)value;
    return FAIL((Comp *)comp, fmi2Error, "fmi2SetRealInputDerivatives: not supported (canInterpolateInputs=false)");
}

FMI_API fmi2Status fmi2GetRealOutputDerivatives(fmi2Component comp, const fmi2ValueReference vr[], size_t nvr,
                                                const fmi2Integer order[], fmi2Real value[]) {
    (void)vr; (void)nvr; (void)order; (void)value;
    return FAIL((Comp *)comp, fmi2Error, "fmi2GetRealOutputDerivatives: not supported (maxOutputDerivativeOrder=0)");
}

FMI_API fmi2Status fmi2GetDirectionalDerivative(fmi2Component comp, const fmi2ValueReference u[], size_t nu,
                                                const fmi2ValueReference z[], size_t nz, const fmi2Real dv[],
                                                fmi2Real dz[]) {
    (void)u; (void)nu; (void)z; (void)nz; (void)dv; (void)dz;
    return FAIL((Comp *)comp, fmi2Error, "fmi2GetDirectionalDerivative: not supported");
}

/* ---- FMU state ------------------------------------------------------------------------------------------
 * A state is its serialized form (one malloc'd block), everything a run writes:
 *   char magic[8] = "FVBLOCK1"; char guid[64] (this FMU's, zero padded); int64 n_p, n_s, n_u, n_y, life-cycle
 *   state; double t, start time, p[n_p], s[n_s], u[n_u], y[n_y]; uint64 check (sum of the little-endian words
 *   before it times 2 i + 1, modulo 2^64: any one flipped bit changes it).
 * A state to restore is checked whole before any byte is copied: magic, GUID, sizes, check word, life-cycle
 * state, the times finite, the settable parameters within their ranges and every other entry of p equal to
 * this instance's (fixed at export), s and y finite, the inputs within their ranges. */
#define FV_STATE_MAGIC "FVBLOCK1"
#define N_HEAD 5
#define STATE_BYTES (8 + 64 + 8 * N_HEAD + 8 * (2 + FV_N_P + FV_N_S + FV_N_U + FV_N_Y) + 8)

static uint64_t state_check(const unsigned char *p, size_t n) {
    uint64_t sum = 0;
    for (size_t i = 0; 8 * i < n; i++) {
        uint64_t w = 0;
        for (size_t k = 0; k < 8 && 8 * i + k < n; k++) w |= (uint64_t)p[8 * i + k] << (8 * k);
        sum += w * (2 * (uint64_t)i + 1);
    }
    return sum;
}

static void put(unsigned char **q, const void *src, size_t n) { if (n) memcpy(*q, src, n); *q += n; }

static void serialize(const Comp *c, unsigned char *out) {
    int64_t head[N_HEAD] = {FV_N_P, FV_N_S, FV_N_U, FV_N_Y, c->state};
    char guid[64] = {0};
    strncpy(guid, FV_GUID, sizeof guid - 1);
    double times[2] = {c->t, c->start_time};
    unsigned char *q = out;
    put(&q, FV_STATE_MAGIC, 8);
    put(&q, guid, sizeof guid);
    put(&q, head, sizeof head);
    put(&q, times, sizeof times);
    put(&q, c->p, 8 * FV_N_P);
    put(&q, c->s, 8 * FV_N_S);
    put(&q, c->u, 8 * FV_N_U);
    put(&q, c->y, 8 * FV_N_Y);
    uint64_t check = state_check(out, (size_t)(q - out));
    for (int k = 0; k < 8; k++) *q++ = (unsigned char)(check >> (8 * k));
}

static double read_double(const unsigned char *q, size_t i) { double x; memcpy(&x, q + 8 * i, sizeof x); return x; }
static int64_t read_int64(const unsigned char *q, size_t i) { int64_t x; memcpy(&x, q + 8 * i, sizeof x); return x; }

/* the variable of this kind (K_PARAMETER: either kind in p) and index (NULL: none) */
static const fv_var *var_at(int kind, int index) {
    for (int i = 0; i < FV_N_VARS; i++)
        if ((FV_VARS[i].kind == kind || (kind == K_PARAMETER && IN_P(FV_VARS[i].kind))) && FV_VARS[i].index == index)
            return &FV_VARS[i];
    return NULL;
}

static fmi2Status check_state(Comp *c, const unsigned char *in, size_t n, const char *fn) {
    static const char *const corrupt = "(corrupt state)";
    if (!in || n < 8 + 64 || memcmp(in, FV_STATE_MAGIC, 8) != 0)
        return FAIL(c, fmi2Error, "%s: not a state of a native fmu_vehicle block FMU of this format (%zu bytes, magic "
                    "%s)", fn, n, FV_STATE_MAGIC);
    char guid[65] = {0};
    memcpy(guid, in + 8, 64);
    for (int i = 0; i < 64 && guid[i]; i++)
        if (guid[i] < 0x20 || guid[i] > 0x7e) guid[i] = '?';
    if (strcmp(guid, FV_GUID) != 0)
        return FAIL(c, fmi2Error, "%s: the state belongs to another FMU or build (GUID %s, this FMU %s)", fn, guid, FV_GUID);
    if (n != STATE_BYTES)
        return FAIL(c, fmi2Error, "%s: the state has %zu bytes, this FMU's have %d %s", fn, n, STATE_BYTES, corrupt);
    if ((uint64_t)read_int64(in + n - 8, 0) != state_check(in, n - 8))
        return FAIL(c, fmi2Error, "%s: the state's check word does not match its bytes %s", fn, corrupt);
    const unsigned char *q = in + 8 + 64;
    static const char *const size_names[4] = {"parameters", "states", "inputs", "outputs"};
    const int64_t sizes[4] = {FV_N_P, FV_N_S, FV_N_U, FV_N_Y};
    for (int i = 0; i < 4; i++)
        if (read_int64(q, i) != sizes[i])
            return FAIL(c, fmi2Error, "%s: the state's number of %s is %lld, this FMU's %lld %s", fn, size_names[i],
                        (long long)read_int64(q, i), (long long)sizes[i], corrupt);
    int64_t life = read_int64(q, 4);
    if (life < S_INSTANTIATED || life > S_TERMINATED)
        return FAIL(c, fmi2Error, "%s: the state's life-cycle state %lld is not one of 0..%d %s", fn, (long long)life,
                    S_TERMINATED, corrupt);
    q += 8 * N_HEAD;
    for (int i = 0; i < 2; i++)
        if (!isfinite(read_double(q, i)))
            return FAIL(c, fmi2Error, "%s: the state's %s is not finite %s", fn, i ? "start time" : "time", corrupt);
    q += 16;
    for (int i = 0; i < FV_N_P; i++) {
        const fv_var *v = var_at(K_PARAMETER, i);
        double x = read_double(q, (size_t)i);
        if (v && !(isfinite(x) && x >= v->min && x <= v->max))
            return FAIL(c, fmi2Error, "%s: the state's parameter '%s' = %g is outside its range [%g, %g] %s", fn, v->name,
                        x, v->min, v->max, corrupt);
        if (!v && memcmp(&x, &c->p[i], sizeof x) != 0)
            return FAIL(c, fmi2Error, "%s: the state's parameter array differs from this FMU's at entry %d (fixed at "
                        "export) %s", fn, i, corrupt);
    }
    q += 8 * FV_N_P;
    for (int i = 0; i < FV_N_S; i++)
        if (!isfinite(read_double(q, (size_t)i)))
            return FAIL(c, fmi2Error, "%s: the state's s[%d] is %g, not finite %s", fn, i, read_double(q, (size_t)i), corrupt);
    q += 8 * FV_N_S;
    for (int i = 0; i < FV_N_U; i++) {
        const fv_var *v = var_at(K_INPUT, i);
        double x = read_double(q, (size_t)i);
        if (!isfinite(x) || (v && !(x >= v->min && x <= v->max)))
            return FAIL(c, fmi2Error, "%s: the state's input '%s' = %g is outside its range %s", fn, v ? v->name : "?", x,
                        corrupt);
    }
    q += 8 * FV_N_U;
    for (int i = 0; i < FV_N_Y; i++) {
        const fv_var *v = var_at(K_OUTPUT, i);
        if (!isfinite(read_double(q, (size_t)i)))
            return FAIL(c, fmi2Error, "%s: the state's output '%s' is not finite %s", fn, v ? v->name : "?", corrupt);
    }
    return fmi2OK;
}

/* restore in[0..n) after check_state accepted all of it: nothing is written before that */
static fmi2Status deserialize(Comp *c, const unsigned char *in, size_t n, const char *fn) {
    if (check_state(c, in, n, fn) != fmi2OK) return fmi2Error;
    const unsigned char *q = in + 8 + 64;
    c->state = (int)read_int64(q, 4);
    q += 8 * N_HEAD;
    c->t = read_double(q, 0);
    c->start_time = read_double(q, 1);
    q += 16;
    if (FV_N_P) memcpy(c->p, q, 8 * FV_N_P);
    q += 8 * FV_N_P;
    if (FV_N_S) memcpy(c->s, q, 8 * FV_N_S);
    q += 8 * FV_N_S;
    if (FV_N_U) memcpy(c->u, q, 8 * FV_N_U);
    q += 8 * FV_N_U;
    if (FV_N_Y) memcpy(c->y, q, 8 * FV_N_Y);
    return fmi2OK;
}

typedef struct { size_t n; unsigned char bytes[]; } State;

FMI_API fmi2Status fmi2GetFMUstate(fmi2Component comp, fmi2FMUstate *s) {
    Comp *c = (Comp *)comp;
    if (!c || !s) return fmi2Error;
    State *st = (State *)*s;
    if (!st || st->n != STATE_BYTES) {
        free(st);
        st = (State *)malloc(sizeof(State) + STATE_BYTES);
        if (!st) { *s = NULL; return FAIL(c, fmi2Error, "fmi2GetFMUstate: out of memory"); }
        st->n = STATE_BYTES;
    }
    serialize(c, st->bytes);
    *s = st;
    return fmi2OK;
}

FMI_API fmi2Status fmi2SetFMUstate(fmi2Component comp, fmi2FMUstate s) {
    Comp *c = (Comp *)comp;
    if (!c) return fmi2Error;
    if (!s) return FAIL(c, fmi2Error, "fmi2SetFMUstate: no state (NULL)");
    return deserialize(c, ((State *)s)->bytes, ((State *)s)->n, "fmi2SetFMUstate");
}

FMI_API fmi2Status fmi2FreeFMUstate(fmi2Component comp, fmi2FMUstate *s) {
    (void)comp;
    if (s) { free(*s); *s = NULL; }
    return fmi2OK;
}

FMI_API fmi2Status fmi2SerializedFMUstateSize(fmi2Component comp, fmi2FMUstate s, size_t *n) {
    if (!comp || !s || !n) return fmi2Error;
    *n = ((State *)s)->n;
    return fmi2OK;
}

FMI_API fmi2Status fmi2SerializeFMUstate(fmi2Component comp, fmi2FMUstate s, fmi2Byte b[], size_t n) {
    Comp *c = (Comp *)comp;
    if (!c || !s) return fmi2Error;
    if (n < ((State *)s)->n) return FAIL(c, fmi2Error, "fmi2SerializeFMUstate: %zu bytes given, %zu needed", n, ((State *)s)->n);
    memcpy(b, ((State *)s)->bytes, ((State *)s)->n);
    return fmi2OK;
}

FMI_API fmi2Status fmi2DeSerializeFMUstate(fmi2Component comp, const fmi2Byte b[], size_t n, fmi2FMUstate *s) {
    Comp *c = (Comp *)comp;
    if (!c || !s) return fmi2Error;
    if (check_state(c, (const unsigned char *)b, n, "fmi2DeSerializeFMUstate") != fmi2OK) return fmi2Error;
    State *st = (State *)malloc(sizeof(State) + n);
    if (!st) return FAIL(c, fmi2Error, "fmi2DeSerializeFMUstate: out of memory");
    st->n = n;
    memcpy(st->bytes, b, n);
    *s = st;
    return fmi2OK;
}
