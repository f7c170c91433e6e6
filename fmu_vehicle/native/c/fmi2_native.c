/* The FMI 2.0 Co-Simulation layer of a native vehicle FMU (fmu_vehicle.native.fmu): the fmi2* functions over
 * the compiled step of runtime.c (fv_instance_new, fv_prepare, fv_advance, fv_final). No formula lives here:
 * a communication step is
 *
 *   n = max(1, round(h / dt)) internal steps of h / n           (vehicle.stepping.substeps)
 *   fv_prepare: steering ramp to the target, external load levers, origin rebase (vehicle.stepping.prepare_step)
 *   fv_advance: n steps of the integrator and the output row    (integrators.rk4.rk4_advance, or
 *               fv_advance_abm4 / _bdf2 / _rk4e: abm.abm_advance, bdf.bdf_advance, rk4e.rk4e_advance)
 *   while it returns 1 with steps left: fv_repartition (new independent coordinates at the state reached,
 *   vehicle.stepping.repartition_state), then the steps left with the method restarted
 *
 * exactly as VehicleSimulator.advance calls the same kernels from Python. The variable table, the initial
 * state and the sizes come from the generated header fv_fmu_config.h (fmu_vehicle/native/fmu.py), made from the
 * same Var table as the Python FMU's modelDescription. Parameters that the Python loader needs were fixed at
 * export: setting one returns fmi2Error naming it. The integrator, the internal step dt, the start speed v0 and
 * the start position x0 stay settable before initialization ends: the static equilibrium at x0 is solved at
 * initialization by the compiled kernel the Python FMU runs (vehicle.equilibrium.static_equilibrium).
 */
#include <math.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fmi2_types.h"      /* the FMI 2.0 types and FMI_API (an FMI 3.0 build defines it empty) */

/* ---- the compiled step (runtime.c) ----------------------------------------------------------------------- */
void *fv_instance_new(const void *image, int64_t nbytes, int64_t **model_buf, int64_t **data_buf);
void fv_instance_free(void *instance);
const char *fv_last_error(void);
void fv_shape(int64_t out[5]);
int64_t fv_prepare(int64_t *model_buf, int64_t *data_buf, double t, double h, double rack_target, double *y,
                   double *row);
int64_t fv_advance(int64_t *model_buf, int64_t *data_buf, double t0, double h, int64_t nsteps, double *y,
                   double *row, double *work, double *key, double *saved, int64_t *done);
int64_t fv_final(int64_t *model_buf, int64_t *data_buf, double t, double *y, double *row, double *ydot);
int64_t fv_start(const double *y_rest, const double *speed_gain, const double *spin_radius, int64_t tire_from,
                 double v0, double *y);
int64_t fv_equilibrium(int64_t *model_buf, int64_t *data_buf, double x0, double mass, double *work, int64_t *ints,
                       double *y_rest, double *speed_gain, double *spin_radius);
int64_t fv_repartition(int64_t *model_buf, int64_t *data_buf, double *y);
int64_t fv_instance_blob(void *instance, unsigned char **blob);
int64_t fv_evaluate(int64_t *model_buf, int64_t *data_buf, double t, double *y, double *row, double *ydot,
                    const double *sw, int64_t n_sw, double *g, int64_t *due);
int64_t fv_advance_abm4(int64_t *model_buf, int64_t *data_buf, double t0, double h, int64_t nsteps, double *y,
                        double *row, double *hist, int64_t *ctl, double *work, double *key, double *saved,
                        int64_t fresh, int64_t *done);
int64_t fv_advance_bdf2(int64_t *model_buf, int64_t *data_buf, double t0, double h, int64_t nsteps, double *y,
                        double *row, double *jac, double *lu, int64_t *piv, double *hmat, int64_t *ctl, double *work,
                        double rtol, double atol, double *key, double *saved, int64_t fresh, int64_t *done);
int64_t fv_advance_rk4e(int64_t *model_buf, int64_t *data_buf, double t0, double h, int64_t nsteps, double *y,
                        double *row, double *work, double *gw, const double *sw, int64_t n_sw, double tol,
                        int64_t max_iter, int64_t max_sub, double *stats, double *key, double *saved, int64_t *done);

/* ---- the generated variable table ------------------------------------------------------------------------ */
enum { T_REAL, T_INTEGER, T_BOOLEAN, T_STRING };
enum {
    K_OUTPUT,          /* Real output: row[index] */
    K_WHEEL_INPUT,     /* Real input: the kernel's input matrix, flat index */
    K_STEERING_ANGLE,  /* Real input: steering-wheel angle [rad]; the rack target is FV_RACK_GAIN x it if used */
    K_RACK_TRAVEL,     /* Real input: rack travel [m]; the rack target if used */
    K_DT,              /* Real parameter: the internal step [s], settable before initialization */
    K_V0,              /* Real parameter: the start speed [m/s], settable before initialization */
    K_X0,              /* Real parameter: the start position on the road [m], settable before initialization */
    K_FIXED,           /* a parameter fixed at export (any type) */
    K_TUNABLE,         /* Real parameter in the model's arrays (FV_TUNE_WRITES), settable before initialization ends */
    K_INTEGRATOR       /* Integer (an Enumeration's item value) parameter: the method, settable before initialization
                        * among those the library carries */
};
typedef struct {
    int type, kind, index;
    double start, min, max;   /* Real/Integer/Boolean value and bounds (min > max: none) */
    const char *string;       /* String value */
    const char *name;
} fv_var;

typedef struct {
    int var;                  /* a K_TUNABLE variable (its value reference) */
    int64_t offset;           /* a blob offset [bytes] of a model-array entry (double) holding its value */
} fv_write;

typedef struct {
    int64_t offset, bytes;    /* a part of the instance's blob [bytes] */
    const char *path;         /* the array(s) it holds, e.g. data.mech.indep */
} fv_range;

#include "fv_fmu_config.h"
/* defines FV_MODEL_IDENTIFIER, FV_GUID, FV_N_VARS, FV_VARS[], FV_N_INPUT_COLS, FV_KEY_WORD, FV_STEERING
 * (0 none, 1 steering-wheel angle, 2 rack travel), FV_RACK_GAIN [m/rad], FV_IMAGE_FILE, FV_TIRE_FROM (the
 * start table's first tire state, vehicle.start), FV_TUNE_WRITES[FV_N_TUNE_WRITES] (where each K_TUNABLE
 * parameter's value lives), FV_BODY_MASSES[FV_N_BODY_MASSES] (blob offsets of the bodies' masses, in the order
 * the vehicle's total mass adds them) and FV_ROD_MASS [kg], the equilibrium's scratch sizes
 * FV_EQ_DOUBLES, FV_EQ_INTS (native.step.StepShape.work_sizes); the step budget FV_MAX_SUBSTEPS; for the check of
 * a state's blob FV_BLOB_FIXED[FV_N_BLOB_FIXED] (the model's arrays), FV_BLOB_INDEX[FV_N_BLOB_INDEX] (the data's
 * integer arrays), FV_INDEX_MAX and FV_INPUTS_OFFSET (data.inputs in the blob); the integrators: the item values
 * FV_ITEM_RK4, FV_ITEM_ABM4, FV_ITEM_BDF2, FV_ITEM_RK4E of the integrator parameter, the sizes of their arrays
 * (FV_WORK, FV_ABM_HIST, FV_ABM_CTL, FV_BDF_JAC, FV_BDF_LU, FV_BDF_PIV, FV_BDF_HMAT, FV_BDF_CTL, FV_RK4E_G,
 * FV_RK4E_STATS, each >= 1), the ranges a restored state's control integers must lie in (FV_ABM_CTL_LO/HI[],
 * FV_BDF_CTL_LO/HI[]), the methods' options (FV_BDF_RTOL, FV_BDF_ATOL, FV_RK4E_TOL, FV_RK4E_MAX_ITER,
 * FV_RK4E_MAX_SUB: the defaults of integrators.bdf.BDF2 and rk4e.RK4E, as the Python FMU's), the system's
 * switch_params FV_SWITCH_PARAMS[FV_N_SWITCH_PARAMS] (at least one element) and FV_CARRIED, the text naming
 * the integrators the library carries with their item values (for messages). Which it carries besides RK4:
 * -DFV_HAS_ABM4, -DFV_HAS_BDF2, -DFV_HAS_RK4E (native.emit.method_defines). */

enum { S_INSTANTIATED, S_INIT, S_STEPPING, S_FAILED, S_TERMINATED };

typedef struct {
    char *name;
    fmi2CallbackLogger logger;
    fmi2ComponentEnvironment env;
    int logging;
    int state;
    void *instance;
    int64_t *model, *data;
    double *inputs;                  /* the kernel's input matrix (data.inputs) inside the instance */
    double y[FV_N_STATES], row[FV_N_OUTPUTS], work[FV_WORK], saved[1 + FV_N_KEY];
    /* the integrators' stepper arrays (integrators.abm.abm_arrays, bdf.bdf_arrays, rk4e.RK4EStepper): only the
     * method's own are used; saved is [first-stage valid, inputs] for RK4 and RK4E, the inputs of the history
     * for ABM4 and BDF2 */
    double hist[FV_ABM_HIST], jac[FV_BDF_JAC], lu[FV_BDF_LU], hmat[FV_BDF_HMAT], gw[FV_RK4E_G], stats[FV_RK4E_STATS];
    int64_t abm_ctl[FV_ABM_CTL], piv[FV_BDF_PIV], bdf_ctl[FV_BDF_CTL];
    int integrator;                  /* the integrator parameter's item value (FV_ITEM_*) */
    int fresh;                       /* 1: the next step restarts the method (the Python stepper's reset()) */
    double t, dt, steering_angle, rack_travel, v0, x0;
    double t_model;                  /* the model's time [s]: 0 at the start, whatever the FMU's start time (the
                                      * Python FMU's simulator counts from 0 too) */
    /* the start table at x0 (vehicle.start) and the equilibrium's scratch */
    double y_rest[FV_N_STATES], speed_gain[FV_N_STATES], spin_radius[FV_N_STATES];
    double eq_work[FV_EQ_DOUBLES];
    int64_t eq_ints[FV_EQ_INTS];
    /* Model Exchange (fmi2_me.c): the mode, and the evaluation at (t, y, inputs) when me_fresh */
    int me, me_mode, me_fresh, me_snapped;
    unsigned char me_snap[FV_ME_BYTES];   /* the evaluation's workspace at the last accepted state (FV_ME_RANGES) */
    int64_t me_status, me_due;
    double me_ydot[FV_N_STATES], me_g[FV_N_EVENT_INDICATORS > 0 ? FV_N_EVENT_INDICATORS : 1];
} Comp;

static int me_real(Comp *c, fmi2ValueReference vr, double *value);     /* fmi2_me.c */
static fmi2Status me_outputs(Comp *c);

/* the arrays a run writes besides the instance's blob: what an FMU state saves (doubles, then int64) */
typedef struct {
    const char *name;
    size_t offset, count;     /* where in Comp, how many numbers */
} fv_field;

#define FIELD(name, member) {name, offsetof(Comp, member), sizeof ((Comp *)0)->member / 8}
static const fv_field STATE_REALS[] = {
    FIELD("state vector y", y), FIELD("output row", row), FIELD("integrator scratch", work),
    FIELD("first-stage record", saved), FIELD("ABM4 history", hist), FIELD("BDF2 Jacobian", jac),
    FIELD("BDF2 LU factors", lu), FIELD("BDF2 step of the factors", hmat), FIELD("RK4E switching values", gw),
    FIELD("RK4E counters", stats)};
static const fv_field STATE_INTS[] = {FIELD("ABM4 control", abm_ctl), FIELD("BDF2 pivots", piv),
                                      FIELD("BDF2 control", bdf_ctl)};
#undef FIELD
#define N_FIELDS(table) (sizeof table / sizeof table[0])

static void logf_(Comp *c, fmi2Status status, const char *category, const char *fmt, ...) {
    if (!c || !c->logger) return;
    if (status == fmi2OK && !c->logging) return;
    char msg[1200];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    /* the message is the logger's format (hosts written with ctypes, as FMPy, see no variadic arguments):
     * its '%' doubled */
    char escaped[2 * sizeof msg];
    size_t k = 0;
    for (const char *p = msg; *p && k < sizeof escaped - 2; p++) {
        if (*p == '%') escaped[k++] = '%';
        escaped[k++] = *p;
    }
    escaped[k] = 0;
    c->logger(c->env, c->name, status, category, escaped);
}

static fmi2Status fail(Comp *c, fmi2Status status, const char *fmt, ...) {
    char msg[1200];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    logf_(c, status, status == fmi2Discard ? "logStatusDiscard" : "logStatusError", "%s", msg);
    return status;
}

static const fv_var *lookup(Comp *c, fmi2ValueReference vr, int type, const char *fn) {
    if (vr >= FV_N_VARS || FV_VARS[vr].type != type) {
        fail(c, fmi2Error, "%s: value reference %u is not a variable of this type", fn, vr);
        return NULL;
    }
    return &FV_VARS[vr];
}

static char *read_resource(Comp *c, const char *location, const char *file, int64_t *n) {
    /* fmuResourceLocation is a URI: file:///abs/path, file:/abs/path or file:///C:/path (FMI 2.0 2.1.5) */
    char path[4096];
    const char *p = location ? location : "";
    if (strncmp(p, "file://", 7) == 0) {
        p += 7;
        if (strncmp(p, "localhost/", 10) == 0) p += 9;
    } else if (strncmp(p, "file:", 5) == 0) {
        p += 5;
    }
#ifdef _WIN32
    if (p[0] == '/' && p[1] && p[2] == ':') p++;       /* /C:/... -> C:/... */
#endif
    size_t k = 0;
    for (; *p && k < sizeof path - 1; p++) {            /* percent-decoding */
        if (p[0] == '%' && p[1] && p[2]) {
            char hex[3] = {p[1], p[2], 0};
            path[k++] = (char)strtol(hex, NULL, 16);
            p += 2;
        } else {
            path[k++] = *p;
        }
    }
    path[k] = 0;
    if (k && path[k - 1] != '/' && path[k - 1] != '\\' && k < sizeof path - 1) { path[k++] = '/'; path[k] = 0; }
    if (strlen(path) + strlen(file) >= sizeof path) { fail(c, fmi2Error, "resource path too long"); return NULL; }
    strcat(path, file);
    FILE *f = fopen(path, "rb");
    if (!f) { fail(c, fmi2Error, "cannot open the FMU resource %s (fmuResourceLocation %s)", path, location); return NULL; }
    fseek(f, 0, SEEK_END);
    long size = ftell(f);
    fseek(f, 0, SEEK_SET);
    char *buf = size > 0 ? (char *)malloc((size_t)size) : NULL;
    if (!buf || fread(buf, 1, (size_t)size, f) != (size_t)size) {
        fclose(f);
        free(buf);
        fail(c, fmi2Error, "cannot read the FMU resource %s", path);
        return NULL;
    }
    fclose(f);
    *n = size;
    return buf;
}

/* the rack travel [m] the next step ramps to, from the steering input the FMU was exported with */
static double rack_target(const Comp *c) {
#if FV_STEERING == 1
    return FV_RACK_GAIN * c->steering_angle;
#elif FV_STEERING == 2
    return c->rack_travel;
#else
    (void)c;
    return 0.0;
#endif
}

static void start_values(Comp *c) {
    for (size_t i = 0; i < N_FIELDS(STATE_REALS); i++)
        memset((char *)c + STATE_REALS[i].offset, 0, 8 * STATE_REALS[i].count);
    for (size_t i = 0; i < N_FIELDS(STATE_INTS); i++)
        memset((char *)c + STATE_INTS[i].offset, 0, 8 * STATE_INTS[i].count);
    c->fresh = 1;
    c->t = 0.0;
    c->t_model = 0.0;
    for (int i = 0; i < FV_N_VARS; i++) {
        const fv_var *v = &FV_VARS[i];
        if (v->kind == K_WHEEL_INPUT) c->inputs[v->index] = v->start;
        else if (v->kind == K_STEERING_ANGLE) c->steering_angle = v->start;
        else if (v->kind == K_RACK_TRAVEL) c->rack_travel = v->start;
        else if (v->kind == K_DT) c->dt = v->start;
        else if (v->kind == K_V0) c->v0 = v->start;
        else if (v->kind == K_X0) c->x0 = v->start;
        else if (v->kind == K_INTEGRATOR) c->integrator = (int)v->start;
    }
}

/* 1 if x is the item value of an integrator this library carries: RK4 always, the others where the export
 * compiled their entry points (-DFV_HAS_ABM4, ...: native.emit.method_defines) */
static int integrator_item(double x) {
    return x == FV_ITEM_RK4
#ifdef FV_HAS_ABM4
        || x == FV_ITEM_ABM4
#endif
#ifdef FV_HAS_BDF2
        || x == FV_ITEM_BDF2
#endif
#ifdef FV_HAS_RK4E
        || x == FV_ITEM_RK4E
#endif
        ;
}

/* n steps of h [s] from the model time t0 [s] with the instance's integrator (the Python stepper's advance);
 * a pending restart (c->fresh, the stepper's reset()) is taken first. */
static int64_t advance(Comp *c, double t0, double h, int64_t n, int64_t *done) {
    int64_t fresh = c->fresh;
    c->fresh = 0;
    switch (c->integrator) {
#ifdef FV_HAS_ABM4
    case FV_ITEM_ABM4:
        return fv_advance_abm4(c->model, c->data, t0, h, n, c->y, c->row, c->hist, c->abm_ctl, c->work, c->inputs,
                               c->saved, fresh, done);
#endif
#ifdef FV_HAS_BDF2
    case FV_ITEM_BDF2:
        return fv_advance_bdf2(c->model, c->data, t0, h, n, c->y, c->row, c->jac, c->lu, c->piv, c->hmat, c->bdf_ctl,
                               c->work, FV_BDF_RTOL, FV_BDF_ATOL, c->inputs, c->saved, fresh, done);
#endif
#ifdef FV_HAS_RK4E
    case FV_ITEM_RK4E:
        if (fresh) c->saved[0] = 0.0;
        return fv_advance_rk4e(c->model, c->data, t0, h, n, c->y, c->row, c->work, c->gw, FV_SWITCH_PARAMS,
                               FV_N_SWITCH_PARAMS, FV_RK4E_TOL, FV_RK4E_MAX_ITER, FV_RK4E_MAX_SUB, c->stats, c->inputs,
                               c->saved, done);
#endif
    default:
        if (fresh) c->saved[0] = 0.0;
        return fv_advance(c->model, c->data, t0, h, n, c->y, c->row, c->work, c->inputs, c->saved, done);
    }
}

/* the double at byte offset `offset` of the instance's blob */
static double *blob_double(const Comp *c, int64_t offset) {
    unsigned char *blob;
    fv_instance_blob(c->instance, &blob);
    return (double *)(void *)(blob + offset);
}

/* The vehicle's total mass [kg] from the bodies' masses in the blob (tunable ones included), added in the order
 * Vehicle.total_mass_kg adds them, so the sum is the Python one to the last bit. */
static double total_mass(const Comp *c) {
    double bodies = 0.0;
    for (int i = 0; i < FV_N_BODY_MASSES; i++) bodies += *blob_double(c, FV_BODY_MASSES[i]);
    return bodies + FV_ROD_MASS;
}

/* a K_TUNABLE parameter's value: its first entry in the model's arrays (every entry holds it) */
static double tunable_value(const Comp *c, int vr) {
    for (int i = 0; i < FV_N_TUNE_WRITES; i++)
        if (FV_TUNE_WRITES[i].var == vr) return *blob_double(c, FV_TUNE_WRITES[i].offset);
    return NAN;
}

static int new_instance(Comp *c, const char *resources) {
    int64_t n = 0;
    char *image = read_resource(c, resources, FV_IMAGE_FILE, &n);
    if (!image) return 0;
    c->instance = fv_instance_new(image, n, &c->model, &c->data);
    free(image);
    if (!c->instance) { fail(c, fmi2Error, "%s", fv_last_error()); return 0; }
    c->inputs = (double *)(intptr_t)c->model[FV_KEY_WORD];
    return 1;
}

/* ---- inquiry, instantiation ------------------------------------------------------------------------------ */
FMI_API const char *fmi2GetTypesPlatform(void) { return "default"; }
FMI_API const char *fmi2GetVersion(void) { return "2.0"; }

static char *resources_location;    /* kept for fmi2Reset: the image is re-read from it */

FMI_API fmi2Component fmi2Instantiate(fmi2String instanceName, fmi2Type fmuType, fmi2String fmuGUID,
                                      fmi2String fmuResourceLocation, const fmi2CallbackFunctions *functions,
                                      fmi2Boolean visible, fmi2Boolean loggingOn) {
    (void)visible;
    Comp tmp = {0};
    tmp.name = (char *)(instanceName ? instanceName : "?");
    tmp.logger = functions ? functions->logger : NULL;
    tmp.env = functions ? functions->componentEnvironment : NULL;
    if (fmuType != fmi2CoSimulation && fmuType != fmi2ModelExchange) {
        fail(&tmp, fmi2Error, "fmi2Instantiate: fmuType %d is neither Model Exchange nor Co-Simulation", (int)fmuType);
        return NULL;
    }
    if (!fmuGUID || strcmp(fmuGUID, FV_GUID) != 0) {
        fail(&tmp, fmi2Error, "fmi2Instantiate: GUID %s is not this FMU's %s", fmuGUID ? fmuGUID : "(null)", FV_GUID);
        return NULL;
    }
    Comp *c = (Comp *)calloc(1, sizeof(Comp));
    if (!c) return NULL;
    *c = tmp;
    c->name = (char *)malloc(strlen(tmp.name) + 1);
    if (c->name) strcpy(c->name, tmp.name);
    c->logging = loggingOn;
    if (!new_instance(c, fmuResourceLocation)) { free(c->name); free(c); return NULL; }
    if (fmuResourceLocation && !resources_location) {
        resources_location = (char *)malloc(strlen(fmuResourceLocation) + 1);
        if (resources_location) strcpy(resources_location, fmuResourceLocation);
    }
    start_values(c);
    c->me = fmuType == fmi2ModelExchange;
    c->state = S_INSTANTIATED;
    return c;
}

FMI_API void fmi2FreeInstance(fmi2Component comp) {
    Comp *c = (Comp *)comp;
    if (!c) return;
    fv_instance_free(c->instance);
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
    if (c->state != S_INSTANTIATED) return fail(c, fmi2Error, "fmi2SetupExperiment: only before initialization");
    if (!isfinite(start)) return fail(c, fmi2Error, "fmi2SetupExperiment: startTime %g is not finite", start);
    c->t = start;                   /* the FMU's time; the model's own starts at 0 (t_model) */
    return fmi2OK;
}

/* The start (initialization mode), as the Python FMU builds its simulator: the static equilibrium at x0
 * (vehicle.equilibrium.static_equilibrium), the state moving at v0 from it (vehicle.start.start_state), the
 * outputs there (VehicleSimulator's first refresh, which gives the wheel centres an external load's levers are
 * taken about), then again with the inputs set so far (VehicleSimulator.refresh). Returns the first failing
 * status (< 0), else fv_final's. */
static int64_t initial_outputs(Comp *c) {
    int64_t st = fv_equilibrium(c->model, c->data, c->x0, total_mass(c), c->eq_work, c->eq_ints, c->y_rest,
                                c->speed_gain, c->spin_radius);
    if (st < 0) return st;
    fv_start(c->y_rest, c->speed_gain, c->spin_radius, FV_TIRE_FROM, c->v0, c->y);
    memset(c->row, 0, sizeof c->row);
    st = fv_final(c->model, c->data, c->t_model, c->y, c->row, c->work);
    if (st < 0) return st;
    return fv_final(c->model, c->data, c->t_model, c->y, c->row, c->work);
}

FMI_API fmi2Status fmi2EnterInitializationMode(fmi2Component comp) {
    Comp *c = (Comp *)comp;
    if (!c) return fmi2Error;
    if (c->state != S_INSTANTIATED) return fail(c, fmi2Error, "fmi2EnterInitializationMode: called twice");
    c->state = S_INIT;
    return fmi2OK;
}

FMI_API fmi2Status fmi2ExitInitializationMode(fmi2Component comp) {
    Comp *c = (Comp *)comp;
    if (!c) return fmi2Error;
    if (c->state != S_INIT) return fail(c, fmi2Error, "fmi2ExitInitializationMode: not in initialization mode");
    int64_t st = initial_outputs(c);
    c->fresh = 1;                   /* the Python stepper's evaluate(): a reset */
    if (st < 0) {
        c->state = S_FAILED;
        return fail(c, fmi2Error, "initial state at x0 = %g m, v0 = %g m/s: the model failed with status %lld%s %s",
                    c->x0, c->v0, (long long)st, st == -2 ? " (no static equilibrium found on this road)" : "",
                    fv_last_error());
    }
    c->state = S_STEPPING;
    c->me_mode = 0;                 /* Model Exchange: event mode (fmi2_me.c) */
    c->me_fresh = c->me_snapped = 0;
    return fmi2OK;
}

FMI_API fmi2Status fmi2Terminate(fmi2Component comp) {
    Comp *c = (Comp *)comp;
    if (!c) return fmi2Error;
    c->state = S_TERMINATED;
    return fmi2OK;
}

FMI_API fmi2Status fmi2Reset(fmi2Component comp) {
    Comp *c = (Comp *)comp;
    if (!c) return fmi2Error;
    fv_instance_free(c->instance);
    c->instance = NULL;
    if (!new_instance(c, resources_location)) { c->state = S_FAILED; return fmi2Error; }
    start_values(c);
    c->state = S_INSTANTIATED;
    return fmi2OK;
}

/* ---- get / set ------------------------------------------------------------------------------------------- */
static double real_value(const Comp *c, const fv_var *v) {
    switch (v->kind) {
    case K_TUNABLE: return tunable_value(c, (int)(v - FV_VARS));
    case K_OUTPUT: return c->row[v->index];
    case K_WHEEL_INPUT: return c->inputs[v->index];
    case K_STEERING_ANGLE: return c->steering_angle;
    case K_RACK_TRAVEL: return c->rack_travel;
    case K_DT: return c->dt;
    case K_V0: return c->v0;
    case K_X0: return c->x0;
    default: return v->start;
    }
}

FMI_API fmi2Status fmi2GetReal(fmi2Component comp, const fmi2ValueReference vr[], size_t nvr, fmi2Real value[]) {
    Comp *c = (Comp *)comp;
    if (!c) return fmi2Error;
    /* In initialization mode the outputs a master reads (and hands to other FMUs) are the initial outputs with
     * the inputs set so far, as fmi2ExitInitializationMode will compute them, not zeros. A failure is reported
     * by fmi2ExitInitializationMode, which computes them again. */
    if (c->state == S_INIT) initial_outputs(c);
    if (me_outputs(c) != fmi2OK) return fmi2Discard;    /* Model Exchange: the outputs at (t, y, inputs) */
    for (size_t i = 0; i < nvr; i++) {
        if (me_real(c, vr[i], &value[i])) continue;       /* a state or derivative (fmi2_me.c) */
        const fv_var *v = lookup(c, vr[i], T_REAL, "fmi2GetReal");
        if (!v) return fmi2Error;
        value[i] = real_value(c, v);
    }
    return fmi2OK;
}

FMI_API fmi2Status fmi2SetReal(fmi2Component comp, const fmi2ValueReference vr[], size_t nvr, const fmi2Real value[]) {
    Comp *c = (Comp *)comp;
    if (!c) return fmi2Error;
    if (c->state == S_TERMINATED || c->state == S_FAILED)
        return fail(c, fmi2Error, "fmi2SetReal: the instance is %s", c->state == S_FAILED ? "failed" : "terminated");
    for (size_t i = 0; i < nvr; i++) {        /* every value checked before any is written */
        const fv_var *v = lookup(c, vr[i], T_REAL, "fmi2SetReal");
        if (!v) return fmi2Error;
        double x = value[i];
        if (v->kind == K_OUTPUT) return fail(c, fmi2Error, "fmi2SetReal: '%s' is an output", v->name);
        if (v->kind == K_FIXED && x != v->start)      /* its own value is accepted: hosts set every parameter */
            return fail(c, fmi2Error, "parameter '%s' is fixed at export (%.17g) in this native FMU: export it again "
                        "with --set %s=<value>", v->name, v->start, v->name);
        if ((v->kind == K_DT || v->kind == K_V0 || v->kind == K_X0 || v->kind == K_TUNABLE) && c->state != S_INSTANTIATED
            && c->state != S_INIT)
            return fail(c, fmi2Error, "parameter '%s' can only be set before initialization ends", v->name);
        if (!isfinite(x)) return fail(c, fmi2Error, "%s = %g is not finite", v->name, x);
        if (!(x >= v->min && x <= v->max))
            return fail(c, fmi2Error, "%s = %g is outside its range [%g, %g]", v->name, x, v->min, v->max);
    }
    for (size_t i = 0; i < nvr; i++) {
        const fv_var *v = &FV_VARS[vr[i]];
        switch (v->kind) {
        case K_WHEEL_INPUT: c->inputs[v->index] = value[i]; break;
        case K_STEERING_ANGLE: c->steering_angle = value[i]; break;
        case K_RACK_TRAVEL: c->rack_travel = value[i]; break;
        case K_DT: c->dt = value[i]; break;
        case K_V0: c->v0 = value[i]; break;
        case K_X0: c->x0 = value[i]; break;
        case K_TUNABLE:
            for (int k = 0; k < FV_N_TUNE_WRITES; k++)
                if (FV_TUNE_WRITES[k].var == (int)vr[i]) *blob_double(c, FV_TUNE_WRITES[k].offset) = value[i];
            break;
        default: break;
        }
    }
    c->me_fresh = 0;
    return fmi2OK;
}

FMI_API fmi2Status fmi2GetInteger(fmi2Component comp, const fmi2ValueReference vr[], size_t nvr, fmi2Integer value[]) {
    Comp *c = (Comp *)comp;
    if (!c) return fmi2Error;
    for (size_t i = 0; i < nvr; i++) {
        const fv_var *v = lookup(c, vr[i], T_INTEGER, "fmi2GetInteger");
        if (!v) return fmi2Error;
        value[i] = v->kind == K_INTEGRATOR ? c->integrator : (fmi2Integer)v->start;
    }
    return fmi2OK;
}

FMI_API fmi2Status fmi2GetBoolean(fmi2Component comp, const fmi2ValueReference vr[], size_t nvr, fmi2Boolean value[]) {
    Comp *c = (Comp *)comp;
    if (!c) return fmi2Error;
    for (size_t i = 0; i < nvr; i++) {
        const fv_var *v = lookup(c, vr[i], T_BOOLEAN, "fmi2GetBoolean");
        if (!v) return fmi2Error;
        value[i] = v->start != 0.0;
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

/* Integer, Boolean and String variables are parameters fixed at export, but for the integrator: setting one to
 * its own value is accepted (hosts set every parameter before initialization), to another value refused by
 * name. The integrator (an Integer holding its Enumeration item value) is settable to any method's item value
 * before initialization ends. Every value is checked before any is written. */
static fmi2Status set_fixed(Comp *c, const fmi2ValueReference vr[], size_t nvr, int type, const char *fn,
                            const double *numbers, const fmi2String *strings) {
    if (!c) return fmi2Error;
    for (size_t i = 0; i < nvr; i++) {
        const fv_var *v = lookup(c, vr[i], type, fn);
        if (!v) return fmi2Error;
        if (v->kind == K_INTEGRATOR) {
            if (!integrator_item(numbers[i]))
                return fail(c, fmi2Error, "%s: %g is not the item value of an integrator this native FMU carries (%s): "
                            "export it again with --set %s=<name>", fn, numbers[i], FV_CARRIED, v->name);
            if (numbers[i] != c->integrator && c->state != S_INSTANTIATED && c->state != S_INIT)
                return fail(c, fmi2Error, "parameter '%s' can only be set before initialization ends", v->name);
            continue;
        }
        int same = strings ? (strings[i] && strcmp(strings[i], v->string) == 0) : numbers[i] == v->start;
        if (!same)
            return fail(c, fmi2Error, "parameter '%s' is fixed at export in this native FMU: export it again with "
                        "--set %s=<value>", v->name, v->name);
    }
    for (size_t i = 0; i < nvr; i++)
        if (FV_VARS[vr[i]].kind == K_INTEGRATOR) c->integrator = (int)numbers[i];
    return fmi2OK;
}

static fmi2Status set_numbers(fmi2Component comp, const fmi2ValueReference vr[], size_t nvr, const int *value,
                              int type, const char *fn) {
    double numbers[64];
    for (size_t start = 0; start < nvr; start += 64) {       /* in chunks: no allocation */
        size_t n = nvr - start < 64 ? nvr - start : 64;
        for (size_t i = 0; i < n; i++) numbers[i] = type == T_BOOLEAN ? (value[start + i] != 0) : value[start + i];
        fmi2Status st = set_fixed((Comp *)comp, vr + start, n, type, fn, numbers, NULL);
        if (st != fmi2OK) return st;
    }
    return fmi2OK;
}

FMI_API fmi2Status fmi2SetInteger(fmi2Component comp, const fmi2ValueReference vr[], size_t nvr, const fmi2Integer value[]) {
    return set_numbers(comp, vr, nvr, value, T_INTEGER, "fmi2SetInteger");
}

FMI_API fmi2Status fmi2SetBoolean(fmi2Component comp, const fmi2ValueReference vr[], size_t nvr, const fmi2Boolean value[]) {
    return set_numbers(comp, vr, nvr, value, T_BOOLEAN, "fmi2SetBoolean");
}

FMI_API fmi2Status fmi2SetString(fmi2Component comp, const fmi2ValueReference vr[], size_t nvr, const fmi2String value[]) {
    return set_fixed((Comp *)comp, vr, nvr, T_STRING, "fmi2SetString", NULL, value);
}

/* ---- stepping -------------------------------------------------------------------------------------------- */
FMI_API fmi2Status fmi2DoStep(fmi2Component comp, fmi2Real currentCommunicationPoint, fmi2Real h,
                              fmi2Boolean noSetFMUStatePriorToCurrentPoint) {
    (void)noSetFMUStatePriorToCurrentPoint;
    Comp *c = (Comp *)comp;
    if (!c) return fmi2Error;
    if (c->me) return fail(c, fmi2Error, "fmi2DoStep: the instance is Model Exchange");
    if (c->state != S_STEPPING)
        return fail(c, fmi2Error, "fmi2DoStep: the instance is %s", c->state == S_FAILED ? "failed (a step failed)"
                    : c->state == S_TERMINATED ? "terminated" : "not initialized");
    if (!(h > 0.0) || !isfinite(h))
        return fail(c, fmi2Error, "fmi2DoStep: communicationStepSize %g must be finite and > 0", h);
    /* written so that a NaN communication point fails the comparison */
    if (!(fabs(currentCommunicationPoint - c->t) <= 1e-9 * fmax(1.0, fabs(c->t))))
        return fail(c, fmi2Error, "fmi2DoStep: currentCommunicationPoint %.17g is not the FMU's time %.17g",
                    currentCommunicationPoint, c->t);
    /* the step budget (the Python FMU's SlaveBase.MAX_SUBSTEPS): refused before anything runs, the instance
     * unchanged, so that a smaller step can follow */
    if (!(h <= (double)FV_MAX_SUBSTEPS * c->dt))
        return fail(c, fmi2Error, "fmi2DoStep: communicationStepSize %g s needs %.3g internal steps of dt = %g s, more "
                    "than the limit of %d per doStep; use communication steps <= %g s", h, h / c->dt, c->dt,
                    FV_MAX_SUBSTEPS, (double)FV_MAX_SUBSTEPS * c->dt);
    double ratio = nearbyint(h / c->dt);                   /* round half to even, as Python's round */
    int64_t n = ratio < 1.0 ? 1 : (int64_t)ratio;
    double step = h / (double)n;
    if (fv_prepare(c->model, c->data, c->t_model, h, rack_target(c), c->y, c->row)) c->fresh = 1;
    int64_t done = 0;
    int64_t st = advance(c, c->t_model, step, n, &done);
    while (st == 1 && done < n) {          /* a new coordinate partition, then the steps left */
        st = fv_repartition(c->model, c->data, c->y);
        if (st != 0) break;
        c->fresh = 1;
        int64_t more = 0;
        st = advance(c, c->t_model + (double)done * step, step, n - done, &more);
        done += more;
    }
    if (st < 0) {
        c->state = S_FAILED;
        /* BDF2's own failure (integrators.bdf.STATUS_NEWTON_FAILED) has the status of a raised exception, and no
         * message */
        const char *why = c->integrator == FV_ITEM_BDF2 && !fv_last_error()[0]
                              ? "(the BDF2 Newton iteration did not converge, not even in sub-steps)" : fv_last_error();
        return fail(c, fmi2Discard, "t = %g s: the vehicle model failed (status %lld) %s", c->t + (double)done * step,
                    (long long)st, why);
    }
    c->t = c->t + h;
    c->t_model = c->t_model + h;
    return fmi2OK;
}

FMI_API fmi2Status fmi2CancelStep(fmi2Component comp) { (void)comp; return fmi2Error; }

FMI_API fmi2Status fmi2GetStatus(fmi2Component comp, const fmi2StatusKind s, fmi2Status *value) {
    (void)s;
    if (!comp) return fmi2Error;
    *value = ((Comp *)comp)->state == S_FAILED ? fmi2Discard : fmi2OK;
    return fmi2OK;
}

FMI_API fmi2Status fmi2GetRealStatus(fmi2Component comp, const fmi2StatusKind s, fmi2Real *value) {
    Comp *c = (Comp *)comp;
    if (!c || s != fmi2LastSuccessfulTime) return fmi2Discard;
    *value = c->t;
    return fmi2OK;
}

FMI_API fmi2Status fmi2GetIntegerStatus(fmi2Component comp, const fmi2StatusKind s, fmi2Integer *value) {
    (void)comp; (void)s; (void)value;
    return fmi2Discard;
}

FMI_API fmi2Status fmi2GetBooleanStatus(fmi2Component comp, const fmi2StatusKind s, fmi2Boolean *value) {
    Comp *c = (Comp *)comp;
    if (!c || s != fmi2Terminated) return fmi2Discard;
    *value = c->state == S_FAILED;     /* the simulation cannot go on */
    return fmi2OK;
}

FMI_API fmi2Status fmi2GetStringStatus(fmi2Component comp, const fmi2StatusKind s, fmi2String *value) {
    (void)comp; (void)s; (void)value;
    return fmi2Discard;
}

FMI_API fmi2Status fmi2SetRealInputDerivatives(fmi2Component comp, const fmi2ValueReference vr[], size_t nvr,
                                               const fmi2Integer order[], const fmi2Real value[]) {
    (void)vr; (void)nvr; (void)order; (void)value;
    return fail((Comp *)comp, fmi2Error, "fmi2SetRealInputDerivatives: not supported (canInterpolateInputs=false)");
}

FMI_API fmi2Status fmi2GetRealOutputDerivatives(fmi2Component comp, const fmi2ValueReference vr[], size_t nvr,
                                                const fmi2Integer order[], fmi2Real value[]) {
    (void)vr; (void)nvr; (void)order; (void)value;
    return fail((Comp *)comp, fmi2Error, "fmi2GetRealOutputDerivatives: not supported (maxOutputDerivativeOrder=0)");
}

FMI_API fmi2Status fmi2GetDirectionalDerivative(fmi2Component comp, const fmi2ValueReference u[], size_t nu,
                                                const fmi2ValueReference z[], size_t nz, const fmi2Real dv[],
                                                fmi2Real dz[]) {
    (void)u; (void)nu; (void)z; (void)nz; (void)dv; (void)dz;
    return fail((Comp *)comp, fmi2Error, "fmi2GetDirectionalDerivative: not supported");
}

/* ---- FMU state ------------------------------------------------------------------------------------------
 * A state is its serialized form (one malloc'd block): everything a run writes, so that a restore continues
 * bit-identically:
 *   char magic[8] = "FVSTATE4"; char guid[64] (this FMU's, zero padded); int64 sizes[5] (fv_shape) and
 *   blob bytes; int64 instance state, integrator (its item value), restart pending (0/1); double t, dt,
 *   steering angle, rack travel, v0, x0, model time; double y[], row[], work[], saved[] and the integrators'
 *   hist[], jac[], lu[], hmat[], gw[], stats[] (STATE_REALS); int64 abm_ctl[], piv[], bdf_ctl[] (STATE_INTS);
 *   uint8 blob[] (the instance's arrays: fv_instance_blob); uint64 check (state_check of everything before
 *   it: any one flipped bit changes it). Every integrator's arrays are saved, whichever runs.
 * A state to restore is checked whole before any byte of it is copied (check_state): magic, GUID, every
 * size, the life-cycle state, the integrator (one this library carries), the restart flag, every scalar
 * (finite, the parameters and inputs within their ranges), every double array finite, the control integers
 * within their ranges (FV_ABM_CTL_LO/HI, FV_BDF_CTL_LO/HI: the ring index and counts of ABM4, BDF2's flags),
 * BDF2's pivots within [0, FV_N_STATES), and in the blob the model's arrays (which never change after export:
 * the integer tables the kernels index with among them) equal to this instance's, but for the tunable
 * parameters' entries (each in its range and equal to the parameter's other entries), and every integer of the data
 * (the coordinate partition, the wheel modes) within [0, FV_INDEX_MAX]; the inputs in the blob within their
 * ranges. Anything else is refused with a message naming the field. (FVSTATE3, before the other integrators,
 * had no integrator fields: such a state is refused by its magic.) */
#define FV_STATE_MAGIC "FVSTATE4"
#define FV_N_SCALARS 7
#define FV_N_HEAD 9
#define FV_STATE_HEAD (8 + 64 + 8 * FV_N_HEAD + 8 * FV_N_SCALARS)

static size_t state_size(Comp *c) {
    unsigned char *blob;
    int64_t nb = fv_instance_blob(c->instance, &blob);
    size_t n = FV_STATE_HEAD + (size_t)nb + 8;
    for (size_t i = 0; i < N_FIELDS(STATE_REALS); i++) n += 8 * STATE_REALS[i].count;
    for (size_t i = 0; i < N_FIELDS(STATE_INTS); i++) n += 8 * STATE_INTS[i].count;
    return n;
}

/* The check word of p[0..n): sum over its little-endian 64-bit words w_i (the last one zero padded) of
 * w_i (2 i + 1), modulo 2^64. One flipped bit b of word i changes it by 2^b (2 i + 1), never 0 modulo 2^64. */
static uint64_t state_check(const unsigned char *p, size_t n) {
    uint64_t sum = 0;
    for (size_t i = 0; 8 * i < n; i++) {
        uint64_t w = 0;
        for (size_t k = 0; k < 8 && 8 * i + k < n; k++) w |= (uint64_t)p[8 * i + k] << (8 * k);
        sum += w * (2 * (uint64_t)i + 1);
    }
    return sum;
}

static void put(unsigned char **p, const void *src, size_t n) { memcpy(*p, src, n); *p += n; }
static void get(const unsigned char **p, void *dst, size_t n) { memcpy(dst, *p, n); *p += n; }

static void serialize(Comp *c, unsigned char *out) {
    unsigned char *blob;
    int64_t nb = fv_instance_blob(c->instance, &blob);
    int64_t head[FV_N_HEAD];
    fv_shape(head);
    head[5] = nb;
    head[6] = c->state;
    head[7] = c->integrator;
    head[8] = c->fresh;
    char guid[64] = {0};
    strncpy(guid, FV_GUID, sizeof guid - 1);
    double scalars[FV_N_SCALARS] = {c->t, c->dt, c->steering_angle, c->rack_travel, c->v0, c->x0, c->t_model};
    unsigned char *p = out;
    put(&p, FV_STATE_MAGIC, 8);
    put(&p, guid, sizeof guid);
    put(&p, head, sizeof head);
    put(&p, scalars, sizeof scalars);
    for (size_t i = 0; i < N_FIELDS(STATE_REALS); i++)
        put(&p, (char *)c + STATE_REALS[i].offset, 8 * STATE_REALS[i].count);
    for (size_t i = 0; i < N_FIELDS(STATE_INTS); i++)
        put(&p, (char *)c + STATE_INTS[i].offset, 8 * STATE_INTS[i].count);
    put(&p, blob, (size_t)nb);
    uint64_t check = state_check(out, (size_t)(p - out));
    unsigned char word[8];
    for (int k = 0; k < 8; k++) word[k] = (unsigned char)(check >> (8 * k));
    put(&p, word, 8);
}

static double read_double(const unsigned char *p) { double x; memcpy(&x, p, sizeof x); return x; }
static int64_t read_int64(const unsigned char *p) { int64_t x; memcpy(&x, p, sizeof x); return x; }

/* the first variable of this kind (NULL if the FMU has none) */
static const fv_var *var_of_kind(int kind) {
    for (int i = 0; i < FV_N_VARS; i++) if (FV_VARS[i].kind == kind) return &FV_VARS[i];
    return NULL;
}

/* fmi2OK if x is finite and within v's range, else fmi2Error naming the state's field. v NULL: finite, and 0 if
 * unused (a steering input this FMU does not have stays 0). */
static fmi2Status check_scalar(Comp *c, const char *fn, const char *field, double x, const fv_var *v, int unused) {
    if (!isfinite(x)) return fail(c, fmi2Error, "%s: the state's %s is %g, not finite (corrupt state)", fn, field, x);
    if (unused && x != 0.0)
        return fail(c, fmi2Error, "%s: the state's %s is %g, not 0: this FMU has no such input (corrupt state)", fn,
                    field, x);
    if (v && !(x >= v->min && x <= v->max))
        return fail(c, fmi2Error, "%s: the state's %s = %g is outside the range [%g, %g] of '%s' (corrupt state)", fn,
                    field, x, v->min, v->max, v->name);
    return fmi2OK;
}

/* fmi2OK if the n doubles at p are finite, else fmi2Error naming the array and the index */
static fmi2Status check_finite(Comp *c, const char *fn, const char *what, const unsigned char *p, size_t n) {
    for (size_t i = 0; i < n; i++) {
        double x = read_double(p + 8 * i);
        if (!isfinite(x)) return fail(c, fmi2Error, "%s: the state's %s[%zu] is %g, not finite (corrupt state)", fn, what, i, x);
    }
    return fmi2OK;
}

/* fmi2OK if in[0..n) is a serialized state this instance can take whole (the comment above), else fmi2Error
 * and why. Reads only in[0..n). */
static fmi2Status check_state(Comp *c, const unsigned char *in, size_t n, const char *fn) {
    if (!in || n < FV_STATE_HEAD || memcmp(in, FV_STATE_MAGIC, 8) != 0)
        return fail(c, fmi2Error, "%s: not a state of a native fmu_vehicle FMU of this format (%zu bytes, magic %s)",
                    fn, n, FV_STATE_MAGIC);
    char guid[65] = {0};
    memcpy(guid, in + 8, 64);
    for (int i = 0; i < 64 && guid[i]; i++)
        if (guid[i] < 0x20 || guid[i] > 0x7e) { guid[i] = '?'; }
    if (strcmp(guid, FV_GUID) != 0)
        return fail(c, fmi2Error, "%s: the state belongs to another FMU or build (GUID %s, this FMU %s)", fn, guid, FV_GUID);
    if (n != state_size(c))
        return fail(c, fmi2Error, "%s: the state has %zu bytes, this FMU's have %zu (truncated or corrupt)", fn, n, state_size(c));
    if ((uint64_t)read_int64(in + n - 8) != state_check(in, n - 8))
        return fail(c, fmi2Error, "%s: the state's check word does not match its bytes (corrupt state)", fn);
    unsigned char *blob;
    int64_t nb = fv_instance_blob(c->instance, &blob);
    const unsigned char *p = in + 8 + 64;
    int64_t shape[5];
    fv_shape(shape);
    static const char *const size_names[5] = {"model words", "data words", "states", "outputs", "inputs"};
    for (int i = 0; i < 5; i++)
        if (read_int64(p + 8 * i) != shape[i])
            return fail(c, fmi2Error, "%s: the state's number of %s is %lld, this FMU's %lld (corrupt state)", fn,
                        size_names[i], (long long)read_int64(p + 8 * i), (long long)shape[i]);
    if (read_int64(p + 40) != nb)
        return fail(c, fmi2Error, "%s: the state's blob has %lld bytes, this FMU's %lld (corrupt state)", fn,
                    (long long)read_int64(p + 40), (long long)nb);
    int64_t life = read_int64(p + 48);
    if (life < S_INSTANTIATED || life > S_TERMINATED)
        return fail(c, fmi2Error, "%s: the state's life-cycle state %lld is not one of 0..%d (corrupt state)", fn,
                    (long long)life, S_TERMINATED);
    int64_t method = read_int64(p + 56);
    if (!integrator_item((double)method))
        return fail(c, fmi2Error, "%s: the state's integrator %lld is not one this FMU carries (%s) (corrupt state)", fn,
                    (long long)method, FV_CARRIED);
    int64_t fresh = read_int64(p + 64);
    if (fresh != 0 && fresh != 1)
        return fail(c, fmi2Error, "%s: the state's restart flag %lld is not 0 or 1 (corrupt state)", fn, (long long)fresh);
    p += 8 * FV_N_HEAD;
    static const char *const scalar_names[FV_N_SCALARS] = {"time", "dt", "steering angle", "rack travel", "v0", "x0",
                                                           "model time"};
    const fv_var *scalar_vars[FV_N_SCALARS] = {NULL, var_of_kind(K_DT), var_of_kind(K_STEERING_ANGLE),
                                               var_of_kind(K_RACK_TRAVEL), var_of_kind(K_V0), var_of_kind(K_X0), NULL};
    for (int i = 0; i < FV_N_SCALARS; i++)
        if (check_scalar(c, fn, scalar_names[i], read_double(p + 8 * i), scalar_vars[i],
                         !scalar_vars[i] && (i == 2 || i == 3)) != fmi2OK)
            return fmi2Error;
    if (!(read_double(p + 8) > 0.0))
        return fail(c, fmi2Error, "%s: the state's dt %g is not > 0 (corrupt state)", fn, read_double(p + 8));
    p += 8 * FV_N_SCALARS;
    for (size_t i = 0; i < N_FIELDS(STATE_REALS); i++) {
        if (check_finite(c, fn, STATE_REALS[i].name, p, STATE_REALS[i].count) != fmi2OK) return fmi2Error;
        p += 8 * STATE_REALS[i].count;
    }
    /* the integers the kernels index with (ABM4's ring index, BDF2's pivots) or branch on */
    for (size_t i = 0; i < N_FIELDS(STATE_INTS); i++) {
        const fv_field *f = &STATE_INTS[i];
        for (size_t k = 0; k < f->count; k++) {
            int64_t v = read_int64(p + 8 * k), lo = 0, hi = FV_N_STATES - 1;
            if (f->offset == offsetof(Comp, abm_ctl)) { lo = FV_ABM_CTL_LO[k]; hi = FV_ABM_CTL_HI[k]; }
            else if (f->offset == offsetof(Comp, bdf_ctl)) { lo = FV_BDF_CTL_LO[k]; hi = FV_BDF_CTL_HI[k]; }
            if (v < lo || v > hi)
                return fail(c, fmi2Error, "%s: the state's %s[%zu] = %lld is outside [%lld, %lld] (corrupt state)", fn,
                            f->name, k, (long long)v, (long long)lo, (long long)hi);
        }
        p += 8 * f->count;
    }
    /* p is the state's blob now: nb bytes, the last of in[0..n) */
    for (int i = 0; i < FV_N_BLOB_FIXED; i++) {
        const fv_range *r = &FV_BLOB_FIXED[i];
        if (r->offset < 0 || r->bytes < 0 || r->offset + r->bytes > nb)
            return fail(c, fmi2Error, "%s: the FMU's table of model arrays does not fit its blob (a build error)", fn);
        if (memcmp(p + r->offset, blob + r->offset, (size_t)r->bytes) != 0)
            return fail(c, fmi2Error, "%s: the state's model arrays (%s) differ from this FMU's: they never change in a "
                        "run (corrupt state, or one of another build)", fn, r->path);
    }
    for (int i = 0; i < FV_N_BLOB_INDEX; i++) {
        const fv_range *r = &FV_BLOB_INDEX[i];
        if (r->offset < 0 || r->bytes < 0 || r->offset + r->bytes > nb)
            return fail(c, fmi2Error, "%s: the FMU's table of integer arrays does not fit its blob (a build error)", fn);
        for (int64_t k = 0; k < r->bytes / 8; k++) {
            int64_t v = read_int64(p + r->offset + 8 * k);
            if (v < 0 || v > FV_INDEX_MAX)
                return fail(c, fmi2Error, "%s: the state's %s[%lld] = %lld is outside [0, %d] (corrupt state)", fn,
                            r->path, (long long)k, (long long)v, FV_INDEX_MAX);
        }
    }
    for (int i = 0; i < FV_N_TUNE_WRITES; i++) {      /* each tunable parameter: in range, the same in every entry */
        const fv_write *w = &FV_TUNE_WRITES[i];
        if (w->offset < 0 || w->offset + 8 > nb || w->var < 0 || w->var >= FV_N_VARS)
            return fail(c, fmi2Error, "%s: the FMU's table of tunable parameters does not fit its blob (a build error)", fn);
        const fv_var *v = &FV_VARS[w->var];
        double x = read_double(p + w->offset);
        if (!(x >= v->min && x <= v->max))
            return fail(c, fmi2Error, "%s: the state's parameter '%s' = %g is outside its range [%g, %g] (corrupt state)",
                        fn, v->name, x, v->min, v->max);
        for (int k = 0; k < i; k++)
            if (FV_TUNE_WRITES[k].var == w->var && read_double(p + FV_TUNE_WRITES[k].offset) != x)
                return fail(c, fmi2Error, "%s: the state's parameter '%s' has two values, %g and %g (corrupt state)",
                            fn, v->name, read_double(p + FV_TUNE_WRITES[k].offset), x);
    }
    for (int i = 0; i < FV_N_VARS; i++) {
        const fv_var *v = &FV_VARS[i];
        if (v->kind != K_WHEEL_INPUT) continue;
        int64_t at = FV_INPUTS_OFFSET + 8 * (int64_t)v->index;
        if (at < 0 || at + 8 > nb) return fail(c, fmi2Error, "%s: input '%s' is outside the blob (a build error)", fn, v->name);
        double x = read_double(p + at);
        if (!(x >= v->min && x <= v->max))
            return fail(c, fmi2Error, "%s: the state's input '%s' = %g is outside its range [%g, %g] (corrupt state)", fn,
                        v->name, x, v->min, v->max);
    }
    return fmi2OK;
}

/* Restore in[0..n) after check_state accepted all of it: nothing is written before that. */
static fmi2Status deserialize(Comp *c, const unsigned char *in, size_t n, const char *fn) {
    unsigned char *blob;
    int64_t nb = fv_instance_blob(c->instance, &blob);
    if (check_state(c, in, n, fn) != fmi2OK) return fmi2Error;
    const unsigned char *p = in + 8 + 64;
    int64_t head[FV_N_HEAD];
    double scalars[FV_N_SCALARS];
    get(&p, head, sizeof head);
    get(&p, scalars, sizeof scalars);
    c->state = (int)head[6];
    c->integrator = (int)head[7];
    c->fresh = (int)head[8];
    c->t = scalars[0];
    c->dt = scalars[1];
    c->steering_angle = scalars[2];
    c->rack_travel = scalars[3];
    c->v0 = scalars[4];
    c->x0 = scalars[5];
    c->t_model = scalars[6];
    for (size_t i = 0; i < N_FIELDS(STATE_REALS); i++)
        get(&p, (char *)c + STATE_REALS[i].offset, 8 * STATE_REALS[i].count);
    for (size_t i = 0; i < N_FIELDS(STATE_INTS); i++)
        get(&p, (char *)c + STATE_INTS[i].offset, 8 * STATE_INTS[i].count);
    get(&p, blob, (size_t)nb);
    c->me_fresh = c->me_snapped = 0;
    return fmi2OK;
}

typedef struct { size_t n; unsigned char bytes[]; } State;

FMI_API fmi2Status fmi2GetFMUstate(fmi2Component comp, fmi2FMUstate *s) {
    Comp *c = (Comp *)comp;
    if (!c || !s) return fmi2Error;
    size_t n = state_size(c);
    State *st = (State *)*s;
    if (!st || st->n != n) {
        free(st);
        st = (State *)malloc(sizeof(State) + n);
        if (!st) { *s = NULL; return fail(c, fmi2Error, "fmi2GetFMUstate: out of memory"); }
        st->n = n;
    }
    serialize(c, st->bytes);
    *s = st;
    return fmi2OK;
}

FMI_API fmi2Status fmi2SetFMUstate(fmi2Component comp, fmi2FMUstate s) {
    Comp *c = (Comp *)comp;
    if (!c) return fmi2Error;
    if (!s) return fail(c, fmi2Error, "fmi2SetFMUstate: no state (NULL)");
    return deserialize(c, ((State *)s)->bytes, ((State *)s)->n, "fmi2SetFMUstate");
}

FMI_API fmi2Status fmi2FreeFMUstate(fmi2Component comp, fmi2FMUstate *s) {
    (void)comp;
    if (s) { free(*s); *s = NULL; }
    return fmi2OK;
}

FMI_API fmi2Status fmi2SerializedFMUstateSize(fmi2Component comp, fmi2FMUstate s, size_t *n) {
    Comp *c = (Comp *)comp;
    if (!c || !s || !n) return fmi2Error;
    *n = ((State *)s)->n;
    return fmi2OK;
}

FMI_API fmi2Status fmi2SerializeFMUstate(fmi2Component comp, fmi2FMUstate s, fmi2Byte b[], size_t n) {
    Comp *c = (Comp *)comp;
    if (!c || !s) return fmi2Error;
    if (n < ((State *)s)->n) return fail(c, fmi2Error, "fmi2SerializeFMUstate: %zu bytes given, %zu needed", n, ((State *)s)->n);
    memcpy(b, ((State *)s)->bytes, ((State *)s)->n);
    return fmi2OK;
}

FMI_API fmi2Status fmi2DeSerializeFMUstate(fmi2Component comp, const fmi2Byte b[], size_t n, fmi2FMUstate *s) {
    Comp *c = (Comp *)comp;
    if (!c || !s) return fmi2Error;
    /* checked against this instance before it is accepted: a foreign or cut state never becomes a state */
    if (check_state(c, (const unsigned char *)b, n, "fmi2DeSerializeFMUstate") != fmi2OK) return fmi2Error;
    State *st = (State *)malloc(sizeof(State) + n);
    if (!st) return fail(c, fmi2Error, "fmi2DeSerializeFMUstate: out of memory");
    st->n = n;
    memcpy(st->bytes, b, n);
    *s = st;                    /* a new state (FMI 2.0: *s on entry is not one to reuse) */
    return fmi2OK;
}

/* ---- Model Exchange ---------------------------------------------------------------------------------------- */
#include "fmi2_me.c"
