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
 * same Var table as the Python FMU's modelDescription. Every parameter stays settable before initialization
 * ends, as in the Python FMU: the integrator, the internal step dt, the start speed v0 and the start position x0,
 * the Real parameters held in the model's arrays (K_TUNABLE), and the choices (K_CHOICE): the vehicle and the
 * road choose the image the instance is made from (FV_VARIANTS, one per (model, road) the export built), the
 * road and tire sources the data's modes, steering_input the input that moves the rack. The layer holds the
 * values set and makes them the instance's at initialization (use_choices), so the order of the sets does not
 * matter. A user's file (road_file) was read at export: setting it returns fmi2Error saying so. The static
 * equilibrium at x0 is solved at initialization by the compiled kernel the Python FMU runs
 * (vehicle.equilibrium.static_equilibrium).
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
    K_STEERING_ANGLE,  /* Real input: steering-wheel angle [rad]; the rack target is the rack gain x it if used */
    K_RACK_TRAVEL,     /* Real input: rack travel [m]; the rack target if used */
    K_DT,              /* Real parameter: the internal step [s], settable before initialization */
    K_V0,              /* Real parameter: the start speed [m/s], settable before initialization */
    K_X0,              /* Real parameter: the start position on the road [m], settable before initialization */
    K_FIXED,           /* a parameter fixed at export (any type) */
    K_TUNABLE,         /* Real parameter in the model's arrays (fv_variant.tune), settable before initialization ends */
    K_INTEGRATOR,      /* Integer (an Enumeration's item value) parameter: the method, settable before initialization
                        * among those the library carries */
    K_CHOICE           /* Integer (an Enumeration's item value) or Boolean parameter held in Comp.par, settable before
                        * initialization ends within [min, max]: model, road, road_source, tire_source, steering_input,
                        * allow_external_files */
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

/* one (model, road) a host can choose: the image the export built for it, or why it has none */
typedef struct {
    const char *image;              /* its file in the FMU's resources; NULL: not carried */
    const char *why;                /* why not carried */
    int model, road;                /* the item values of its model and road */
    int64_t blob_bytes;             /* the size of its blob */
    int64_t inputs_offset, modes_offset;   /* data.inputs, data.modes (int64: road source, tire source) in the blob */
    int n_tune;                     /* where each K_TUNABLE parameter's value lives in its blob */
    const fv_write *tune;
    const double *lo, *hi;          /* per variable: the model's own range of a K_TUNABLE parameter set away from its
                                     * start value (vehicle_parameters.model_range, as the Python loader checks it) */
    int n_bodies;                   /* blob offsets of the bodies' masses, in the order the total mass adds them */
    const int64_t *bodies;
    double rod_mass;                /* [kg] */
    double rack_gain, angle_limit, rack_limit;   /* [m/rad], the rack end stops [rad] of the wheel, [m] */
    int64_t n_switch;               /* the road's switching parameters (RK4E's switching pass; at least one) */
    const double *switch_params;
    int n_fixed;                    /* the model's arrays (never change in a run): a restored state's must be these */
    const fv_range *fixed;
    int n_index;                    /* the data's integer arrays: a restored state's within [0, FV_INDEX_MAX] */
    const fv_range *index;
    int n_me;                       /* Model Exchange (fmi2_me.c): the evaluation's workspace in this blob
                                     * (native.fmu.evaluation_workspace; the variants' blobs differ) */
    const fv_range *me;
    int64_t steer_offset;           /* data.steer in the blob (-1: the vehicle does not steer) */
    const char *model_name, *road_name;
} fv_variant;

#include "fv_fmu_config.h"
/* defines FV_MODEL_IDENTIFIER, FV_GUID, FV_N_VARS, FV_VARS[], FV_N_INPUT_COLS, FV_N_INPUTS (data.inputs' size),
 * FV_KEY_WORD, the value references FV_VR_MODEL, FV_VR_ROAD, FV_VR_ROAD_SOURCE, FV_VR_TIRE_SOURCE,
 * FV_VR_STEERING_INPUT (-1: none) and the first item values FV_ITEM_INTERNAL (road_source, tire_source: the mode
 * is the item value less it) and FV_ITEM_STEERING_WHEEL_ANGLE; FV_TIRE_FROM (the start table's first tire state,
 * vehicle.start), the equilibrium's scratch sizes FV_EQ_DOUBLES, FV_EQ_INTS (native.step.StepShape.work_sizes);
 * the step budget FV_MAX_SUBSTEPS; FV_INDEX_MAX; FV_VARIANTS[FV_N_VARIANTS] (the images, the first the export's)
 * and FV_MAX_TUNE_WRITES; the integrators: the item values
 * FV_ITEM_RK4, FV_ITEM_ABM4, FV_ITEM_BDF2, FV_ITEM_RK4E of the integrator parameter, the sizes of their arrays
 * (FV_WORK, FV_ABM_HIST, FV_ABM_CTL, FV_BDF_JAC, FV_BDF_LU, FV_BDF_PIV, FV_BDF_HMAT, FV_BDF_CTL, FV_RK4E_G,
 * FV_RK4E_STATS, each >= 1), the ranges a restored state's control integers must lie in (FV_ABM_CTL_LO/HI[],
 * FV_BDF_CTL_LO/HI[]), the methods' options (FV_BDF_RTOL, FV_BDF_ATOL, FV_RK4E_TOL, FV_RK4E_MAX_ITER,
 * FV_RK4E_MAX_SUB: the defaults of integrators.bdf.BDF2 and rk4e.RK4E, as the Python FMU's; the road's
 * switching parameters are each variant's) and FV_CARRIED, the text naming the integrators the library carries
 * with their item values (for messages); Model Exchange (fmi2_me.c): FV_N_EVENT_INDICATORS,
 * FV_NOMINALS[], FV_ME_BYTES (the largest of the variants' evaluation workspaces). Which it carries besides RK4:
 * -DFV_HAS_ABM4, -DFV_HAS_BDF2, -DFV_HAS_RK4E (native.emit.method_defines). */

enum { S_INSTANTIATED, S_INIT, S_STEPPING, S_FAILED, S_TERMINATED };

typedef struct {
    char *name;
    fmi2CallbackLogger logger;
    fmi2ComponentEnvironment env;
    int logging;
    int state;
    void *instance;
    const fv_variant *var;           /* the variant the instance was made from */
    char *resources;                 /* fmuResourceLocation: where the images are read from */
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
    double par[FV_N_VARS];           /* the value set of each K_TUNABLE and K_CHOICE parameter (its start value) */
    double own[FV_MAX_TUNE_WRITES];  /* the image's own values at var->tune[] (a parameter at its start value keeps
                                      * the chosen vehicle file's value, as in the Python loader) */
    int64_t variant;                 /* var's index in FV_VARIANTS */
    double t_model;                  /* the model's time [s]: 0 at the start, whatever the FMU's start time (the
                                      * Python FMU's simulator counts from 0 too) */
    /* the start table at x0 (vehicle.start) and the equilibrium's scratch */
    double y_rest[FV_N_STATES], speed_gain[FV_N_STATES], spin_radius[FV_N_STATES];
    double eq_work[FV_EQ_DOUBLES];
    int64_t eq_ints[FV_EQ_INTS];
    /* Model Exchange (fmi2_me.c): the mode, and the evaluation at (t, y, inputs) when me_fresh */
    int me, me_mode, me_fresh, me_snapped;
    unsigned char me_snap[FV_ME_BYTES];   /* the evaluation's workspace at the last accepted state (var->me) */
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
    FIELD("RK4E counters", stats), FIELD("parameter values", par)};
static const fv_field STATE_INTS[] = {FIELD("ABM4 control", abm_ctl), FIELD("BDF2 pivots", piv),
                                      FIELD("BDF2 control", bdf_ctl), FIELD("image variant", variant)};
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

/* the rack travel [m] the next step ramps to, from the steering input chosen (steering_input) */
static double rack_target(const Comp *c) {
#if FV_VR_STEERING_INPUT >= 0
    return c->par[FV_VR_STEERING_INPUT] == FV_ITEM_STEERING_WHEEL_ANGLE ? c->var->rack_gain * c->steering_angle
                                                                       : c->rack_travel;
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
        else if (v->kind == K_TUNABLE || v->kind == K_CHOICE) c->par[i] = v->start;
    }
    c->variant = c->var - FV_VARIANTS;
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
        return fv_advance_rk4e(c->model, c->data, t0, h, n, c->y, c->row, c->work, c->gw, c->var->switch_params,
                               c->var->n_switch, FV_RK4E_TOL, FV_RK4E_MAX_ITER, FV_RK4E_MAX_SUB, c->stats, c->inputs,
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
    for (int i = 0; i < c->var->n_bodies; i++) bodies += *blob_double(c, c->var->bodies[i]);
    return bodies + c->var->rod_mass;
}

/* open_image: a new instance (its buffers in *model, *data) from variant v's image; NULL and an error message if
 * the image cannot be read or is not the one the build describes.
 * load_variant: c's instance made from variant v's image (model, data, inputs, own values), the inputs set so
 * far carried over from c's old instance (freed), if any. 0 and an error message on failure; c is unchanged then. */
static void *open_image(Comp *c, const fv_variant *v, int64_t **model, int64_t **data) {
    int64_t n = 0;
    char *image = read_resource(c, c->resources, v->image, &n);
    if (!image) return NULL;
    void *instance = fv_instance_new(image, n, model, data);
    free(image);
    if (!instance) { fail(c, fmi2Error, "the FMU resource %s: %s", v->image, fv_last_error()); return NULL; }
    unsigned char *blob;
    if (fv_instance_blob(instance, &blob) != v->blob_bytes) {
        fv_instance_free(instance);
        fail(c, fmi2Error, "the FMU resource %s is not the image this build was made with", v->image);
        return NULL;
    }
    return instance;
}

/* c's instance replaced by `instance` (from variant v's image, not yet changed: its own values are read) */
static void adopt(Comp *c, const fv_variant *v, void *instance) {
    int64_t shape[5];
    fv_shape(shape);
    int64_t *model = (int64_t *)instance;          /* fv_instance_new: the model buffer, then the data buffer */
    double *inputs = (double *)(intptr_t)model[FV_KEY_WORD];
    if (c->instance) {
        memcpy(inputs, c->inputs, sizeof(double) * FV_N_INPUTS);
        fv_instance_free(c->instance);
    }
    c->instance = instance;
    c->model = model;
    c->data = model + shape[0];
    c->inputs = inputs;
    c->var = v;
    c->variant = v - FV_VARIANTS;
    for (int i = 0; i < v->n_tune; i++) c->own[i] = *blob_double(c, v->tune[i].offset);
}

static int load_variant(Comp *c, const fv_variant *v) {
    int64_t *model, *data;
    void *instance = open_image(c, v, &model, &data);
    if (!instance) return 0;
    adopt(c, v, instance);
    return 1;
}

/* the variant carried for model and road item values (NULL: none; *why then the reason, if the build knows one) */
static const fv_variant *find_variant(double model, double road, const char **why) {
    *why = NULL;
    for (int i = 0; i < FV_N_VARIANTS; i++) {
        const fv_variant *v = &FV_VARIANTS[i];
        if (v->road != road || v->model != model) continue;
        if (v->image) return v;
        *why = v->why;
    }
    return NULL;
}

/* the item value of a choice (0 if the FMU has no such variable: vr -1) */
static double choice(const Comp *c, int vr) { return vr >= 0 ? c->par[vr] : 0.0; }

/* fmi2OK if the steering input x of kind K_STEERING_ANGLE or K_RACK_TRAVEL lies within the rack end stops of the
 * vehicle of c's image (the Python FMU narrows the inputs to them), else fmi2Error naming it */
static fmi2Status check_steering(Comp *c, const char *fn, int kind, double x) {
    double limit = kind == K_STEERING_ANGLE ? c->var->angle_limit : c->var->rack_limit;
    if (!(fabs(x) <= limit))
        return fail(c, fmi2Error, "%s: %s = %g is beyond the rack end stops [%g, %g] of vehicle '%s'", fn,
                    kind == K_STEERING_ANGLE ? "steering_wheel_angle" : "rack_travel_command", x, -limit, limit,
                    c->var->model_name);
    return fmi2OK;
}

/* Makes the values set the instance's (before initialization ends, and again whenever a host reads in
 * initialization mode): the instance made from the image of the model and road chosen (a new one if they
 * changed: the inputs carried over), the road and tire sources into the data's modes, each K_TUNABLE parameter
 * into its entries of the model's arrays (the image's own value where it is at its start value: the Python loader
 * keeps the chosen vehicle file's value then, and checks one set otherwise against the model's own range), the
 * steering input within the chosen vehicle's rack end stops. fmi2Error naming what is refused. */
static fmi2Status use_choices(Comp *c, const char *fn) {
    double model = choice(c, FV_VR_MODEL);
    const char *why;
    const fv_variant *v = find_variant(model, choice(c, FV_VR_ROAD), &why);
    if (!v)
        return fail(c, fmi2Error, "%s: this native FMU does not carry model item %g on road item %g: %s", fn, model,
                    choice(c, FV_VR_ROAD), why ? why : "no such choice");
    if (v != c->var && !load_variant(c, v)) return fmi2Error;
    for (int i = 0; i < v->n_tune; i++) {
        int vr = v->tune[i].var;
        double x = c->par[vr];
        if (x != FV_VARS[vr].start && !(x >= v->lo[vr] && x <= v->hi[vr]))
            return fail(c, fmi2Error, "%s: parameter '%s' = %.17g is outside [%g, %g] for model '%s' (the model's own "
                        "range)", fn, FV_VARS[vr].name, x, v->lo[vr], v->hi[vr], v->model_name);
    }
    for (int i = 0; i < v->n_tune; i++) {
        int vr = v->tune[i].var;
        *blob_double(c, v->tune[i].offset) = c->par[vr] != FV_VARS[vr].start ? c->par[vr] : c->own[i];
    }
    unsigned char *blob;
    fv_instance_blob(c->instance, &blob);
    int64_t modes[2] = {FV_VR_ROAD_SOURCE >= 0 ? (int64_t)(choice(c, FV_VR_ROAD_SOURCE) - FV_ITEM_INTERNAL) : 0,
                        FV_VR_TIRE_SOURCE >= 0 ? (int64_t)(choice(c, FV_VR_TIRE_SOURCE) - FV_ITEM_INTERNAL) : 0};
    memcpy(blob + v->modes_offset, modes, sizeof modes);
#if FV_VR_STEERING_INPUT >= 0
    if (c->par[FV_VR_STEERING_INPUT] == FV_ITEM_STEERING_WHEEL_ANGLE)
        return check_steering(c, fn, K_STEERING_ANGLE, c->steering_angle);
    return check_steering(c, fn, K_RACK_TRAVEL, c->rack_travel);
#else
    return fmi2OK;
#endif
}

/* ---- inquiry, instantiation ------------------------------------------------------------------------------ */
FMI_API const char *fmi2GetTypesPlatform(void) { return "default"; }
FMI_API const char *fmi2GetVersion(void) { return "2.0"; }

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
    const char *location = fmuResourceLocation ? fmuResourceLocation : "";
    c->resources = (char *)malloc(strlen(location) + 1);
    if (c->resources) strcpy(c->resources, location);
    if (!c->name || !c->resources || !load_variant(c, &FV_VARIANTS[0])) {
        free(c->name);
        free(c->resources);
        free(c);
        return NULL;
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
    free(c->resources);
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
    if (use_choices(c, "fmi2ExitInitializationMode") != fmi2OK) {
        c->state = S_FAILED;
        return fmi2Error;
    }
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
    if (!load_variant(c, &FV_VARIANTS[0])) { c->state = S_FAILED; return fmi2Error; }
    start_values(c);
    c->state = S_INSTANTIATED;
    return fmi2OK;
}

/* ---- get / set ------------------------------------------------------------------------------------------- */
static double real_value(const Comp *c, const fv_var *v) {
    switch (v->kind) {
    case K_TUNABLE: return c->par[v - FV_VARS];
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
    if (c->state == S_INIT && use_choices(c, "fmi2GetReal") == fmi2OK) initial_outputs(c);
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
        if ((v->kind == K_STEERING_ANGLE || v->kind == K_RACK_TRAVEL) && c->state == S_STEPPING &&
            check_steering(c, "fmi2SetReal", v->kind, x) != fmi2OK)
            return fmi2Error;
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
        case K_TUNABLE: c->par[vr[i]] = value[i]; break;
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
        value[i] = v->kind == K_INTEGRATOR ? c->integrator : v->kind == K_CHOICE ? (fmi2Integer)c->par[vr[i]]
                                                                                : (fmi2Integer)v->start;
    }
    return fmi2OK;
}

FMI_API fmi2Status fmi2GetBoolean(fmi2Component comp, const fmi2ValueReference vr[], size_t nvr, fmi2Boolean value[]) {
    Comp *c = (Comp *)comp;
    if (!c) return fmi2Error;
    for (size_t i = 0; i < nvr; i++) {
        const fv_var *v = lookup(c, vr[i], T_BOOLEAN, "fmi2GetBoolean");
        if (!v) return fmi2Error;
        value[i] = (v->kind == K_CHOICE ? c->par[vr[i]] : v->start) != 0.0;
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

/* fmi2OK if x may be the value of the choice v (value reference vr): an item value of it (an Enumeration's
 * 1..n, a Boolean's 0..1), set before initialization ends (after it only its own value), and for the model one
 * the FMU carries an image of (on some road), else fmi2Error naming the parameter and why. */
static fmi2Status check_choice(Comp *c, const fv_var *v, int vr, double x, const char *fn) {
    if (!(x >= v->min && x <= v->max))
        return fail(c, fmi2Error, "%s: %g is not an item value of parameter '%s' (%g to %g)", fn, x, v->name, v->min,
                    v->max);
    if (x != c->par[vr] && c->state != S_INSTANTIATED && c->state != S_INIT)
        return fail(c, fmi2Error, "parameter '%s' can only be set before initialization ends", v->name);
    if (vr != FV_VR_MODEL) return fmi2OK;
    const char *why = "no image";
    for (int i = 0; i < FV_N_VARIANTS; i++) {
        if (FV_VARIANTS[i].model != x) continue;
        if (FV_VARIANTS[i].image) return fmi2OK;
        why = FV_VARIANTS[i].why;
    }
    return fail(c, fmi2Error, "%s: parameter '%s' = %g: this native FMU does not carry that vehicle: %s", fn, v->name,
                x, why);
}

/* Integer, Boolean and String parameters. The integrator (an Integer holding its Enumeration item value) is
 * settable to any method's item value the library carries before initialization ends, a choice (K_CHOICE) to
 * any of its items (check_choice). The others are fixed at export: setting one to its own value is accepted
 * (hosts set every parameter before initialization), to another value refused by name, a String (a user's file,
 * read at export) saying so. Every value is checked before any is written. */
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
        if (v->kind == K_CHOICE) {
            if (check_choice(c, v, (int)vr[i], numbers[i], fn) != fmi2OK) return fmi2Error;
            continue;
        }
        int same = strings ? (strings[i] && strcmp(strings[i], v->string) == 0) : numbers[i] == v->start;
        if (!same && strings)
            return fail(c, fmi2Error, "parameter '%s' names a user's file, which this native FMU read at export into "
                        "its image (\"%s\"): it is fixed; export it again with --set %s=<path>", v->name, v->string,
                        v->name);
        if (!same)
            return fail(c, fmi2Error, "parameter '%s' is fixed at export in this native FMU: export it again with "
                        "--set %s=<value>", v->name, v->name);
    }
    for (size_t i = 0; i < nvr; i++) {
        if (FV_VARS[vr[i]].kind == K_INTEGRATOR) c->integrator = (int)numbers[i];
        else if (FV_VARS[vr[i]].kind == K_CHOICE) c->par[vr[i]] = numbers[i];
    }
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
#define FV_STATE_MAGIC "FVSTATE5"
#define FV_N_SCALARS 7
#define FV_N_HEAD 9
#define FV_STATE_HEAD (8 + 64 + 8 * FV_N_HEAD + 8 * FV_N_SCALARS)

/* the bytes of a state before its blob: header, STATE_REALS, STATE_INTS (the image variant last) */
static size_t state_fields_size(void) {
    size_t n = FV_STATE_HEAD;
    for (size_t i = 0; i < N_FIELDS(STATE_REALS); i++) n += 8 * STATE_REALS[i].count;
    for (size_t i = 0; i < N_FIELDS(STATE_INTS); i++) n += 8 * STATE_INTS[i].count;
    return n;
}

/* the size of a state of an instance whose blob has nb bytes */
static size_t state_size_of(int64_t nb) { return state_fields_size() + (size_t)nb + 8; }

static size_t state_size(Comp *c) {
    unsigned char *blob;
    return state_size_of(fv_instance_blob(c->instance, &blob));
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

/* check_state's checks (below) */
static fmi2Status check_state_in(Comp *c, const unsigned char *in, size_t n, const char *fn, void **other) {
    if (!in || n < FV_STATE_HEAD || memcmp(in, FV_STATE_MAGIC, 8) != 0)
        return fail(c, fmi2Error, "%s: not a state of a native fmu_vehicle FMU of this format (%zu bytes, magic %s)",
                    fn, n, FV_STATE_MAGIC);
    char guid[65] = {0};
    memcpy(guid, in + 8, 64);
    for (int i = 0; i < 64 && guid[i]; i++)
        if (guid[i] < 0x20 || guid[i] > 0x7e) { guid[i] = '?'; }
    if (strcmp(guid, FV_GUID) != 0)
        return fail(c, fmi2Error, "%s: the state belongs to another FMU or build (GUID %s, this FMU %s)", fn, guid, FV_GUID);
    size_t fields = state_fields_size();
    if (n < fields + 8)
        return fail(c, fmi2Error, "%s: the state has %zu bytes, fewer than this FMU's %zu before the blob (truncated)",
                    fn, n, fields + 8);
    int64_t k = read_int64(in + fields - 8);       /* the image variant, the last of STATE_INTS */
    if (k < 0 || k >= FV_N_VARIANTS || !FV_VARIANTS[k].image)
        return fail(c, fmi2Error, "%s: the state's image variant %lld is not one this FMU carries (corrupt state)", fn,
                    (long long)k);
    const fv_variant *var = &FV_VARIANTS[k];
    if (n != state_size_of(var->blob_bytes))
        return fail(c, fmi2Error, "%s: the state has %zu bytes, this FMU's of model '%s' on road '%s' have %zu "
                    "(truncated or corrupt)", fn, n, var->model_name, var->road_name, state_size_of(var->blob_bytes));
    if ((uint64_t)read_int64(in + n - 8) != state_check(in, n - 8))
        return fail(c, fmi2Error, "%s: the state's check word does not match its bytes (corrupt state)", fn);
    unsigned char *blob;
    int64_t nb = fv_instance_blob(c->instance, &blob);
    if (var != c->var) {          /* the model's arrays of that variant's image, to check the state's against */
        int64_t *model, *data;
        *other = open_image(c, var, &model, &data);
        if (!*other) return fmi2Error;
        nb = fv_instance_blob(*other, &blob);
    }
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
        if (STATE_REALS[i].offset == offsetof(Comp, par))       /* the parameters and choices held */
            for (int vr = 0; vr < FV_N_VARS; vr++) {
                const fv_var *v = &FV_VARS[vr];
                double x = read_double(p + 8 * vr);
                if ((v->kind == K_TUNABLE || v->kind == K_CHOICE) && !(x >= v->min && x <= v->max))
                    return fail(c, fmi2Error, "%s: the state's parameter '%s' = %g is outside its range [%g, %g] "
                                "(corrupt state)", fn, v->name, x, v->min, v->max);
                if (v->kind == K_CHOICE && x != floor(x))
                    return fail(c, fmi2Error, "%s: the state's parameter '%s' = %g is not an item value (corrupt "
                                "state)", fn, v->name, x);
                if (v->kind != K_TUNABLE && v->kind != K_CHOICE && x != 0.0)
                    return fail(c, fmi2Error, "%s: the state's value %g of '%s', which this FMU does not hold, is not 0 "
                                "(corrupt state)", fn, x, v->name);
                if ((vr == FV_VR_MODEL && x != var->model) || (vr == FV_VR_ROAD && x != var->road))
                    return fail(c, fmi2Error, "%s: the state's parameter '%s' = %g is not the one of its image (model "
                                "'%s' on road '%s') (corrupt state)", fn, v->name, x, var->model_name, var->road_name);
            }
        p += 8 * STATE_REALS[i].count;
    }
    /* the integers the kernels index with (ABM4's ring index, BDF2's pivots) or branch on */
    for (size_t i = 0; i < N_FIELDS(STATE_INTS); i++) {
        const fv_field *f = &STATE_INTS[i];
        for (size_t k = 0; k < f->count; k++) {
            int64_t v = read_int64(p + 8 * k), lo = 0, hi = FV_N_STATES - 1;
            if (f->offset == offsetof(Comp, variant)) continue;     /* checked above */
            if (f->offset == offsetof(Comp, abm_ctl)) { lo = FV_ABM_CTL_LO[k]; hi = FV_ABM_CTL_HI[k]; }
            else if (f->offset == offsetof(Comp, bdf_ctl)) { lo = FV_BDF_CTL_LO[k]; hi = FV_BDF_CTL_HI[k]; }
            if (v < lo || v > hi)
                return fail(c, fmi2Error, "%s: the state's %s[%zu] = %lld is outside [%lld, %lld] (corrupt state)", fn,
                            f->name, k, (long long)v, (long long)lo, (long long)hi);
        }
        p += 8 * f->count;
    }
    /* p is the state's blob now: nb bytes, the last of in[0..n) */
    for (int i = 0; i < var->n_fixed; i++) {
        const fv_range *r = &var->fixed[i];
        if (r->offset < 0 || r->bytes < 0 || r->offset + r->bytes > nb)
            return fail(c, fmi2Error, "%s: the FMU's table of model arrays does not fit its blob (a build error)", fn);
        if (memcmp(p + r->offset, blob + r->offset, (size_t)r->bytes) != 0)
            return fail(c, fmi2Error, "%s: the state's model arrays (%s) differ from this FMU's: they never change in a "
                        "run (corrupt state, or one of another build)", fn, r->path);
    }
    for (int i = 0; i < var->n_index; i++) {
        const fv_range *r = &var->index[i];
        if (r->offset < 0 || r->bytes < 0 || r->offset + r->bytes > nb)
            return fail(c, fmi2Error, "%s: the FMU's table of integer arrays does not fit its blob (a build error)", fn);
        for (int64_t k = 0; k < r->bytes / 8; k++) {
            int64_t v = read_int64(p + r->offset + 8 * k);
            if (v < 0 || v > FV_INDEX_MAX)
                return fail(c, fmi2Error, "%s: the state's %s[%lld] = %lld is outside [0, %d] (corrupt state)", fn,
                            r->path, (long long)k, (long long)v, FV_INDEX_MAX);
        }
    }
    for (int i = 0; i < var->n_tune; i++) {      /* each tunable parameter: in range, the same in every entry */
        const fv_write *w = &var->tune[i];
        if (w->offset < 0 || w->offset + 8 > nb || w->var < 0 || w->var >= FV_N_VARS)
            return fail(c, fmi2Error, "%s: the FMU's table of tunable parameters does not fit its blob (a build error)", fn);
        const fv_var *v = &FV_VARS[w->var];
        double x = read_double(p + w->offset);
        if (!(x >= v->min && x <= v->max))
            return fail(c, fmi2Error, "%s: the state's parameter '%s' = %g is outside its range [%g, %g] (corrupt state)",
                        fn, v->name, x, v->min, v->max);
        for (int k = 0; k < i; k++)
            if (var->tune[k].var == w->var && read_double(p + var->tune[k].offset) != x)
                return fail(c, fmi2Error, "%s: the state's parameter '%s' has two values, %g and %g (corrupt state)",
                            fn, v->name, read_double(p + var->tune[k].offset), x);
    }
    for (int i = 0; i < FV_N_VARS; i++) {
        const fv_var *v = &FV_VARS[i];
        if (v->kind != K_WHEEL_INPUT) continue;
        int64_t at = var->inputs_offset + 8 * (int64_t)v->index;
        if (at < 0 || at + 8 > nb) return fail(c, fmi2Error, "%s: input '%s' is outside the blob (a build error)", fn, v->name);
        double x = read_double(p + at);
        if (!(x >= v->min && x <= v->max))
            return fail(c, fmi2Error, "%s: the state's input '%s' = %g is outside its range [%g, %g] (corrupt state)", fn,
                        v->name, x, v->min, v->max);
    }
    return fmi2OK;
}

/* fmi2OK if in[0..n) is a serialized state this instance can take whole (the comment above), else fmi2Error
 * and why. Reads only in[0..n). A state of another (model, road) than the instance's is checked against that
 * variant's image, read for it: *other is then that new instance (the caller frees or adopts it), else NULL. */
static fmi2Status check_state(Comp *c, const unsigned char *in, size_t n, const char *fn, void **other) {
    *other = NULL;
    fmi2Status st = check_state_in(c, in, n, fn, other);
    if (st != fmi2OK && *other) { fv_instance_free(*other); *other = NULL; }
    return st;
}

/* Restore in[0..n) after check_state accepted all of it: nothing is written before that. A state of another
 * (model, road) brings its image's instance (the inputs are the state's). */
static fmi2Status deserialize(Comp *c, const unsigned char *in, size_t n, const char *fn) {
    void *other;
    if (check_state(c, in, n, fn, &other) != fmi2OK) return fmi2Error;
    if (other) adopt(c, &FV_VARIANTS[read_int64(in + state_fields_size() - 8)], other);
    unsigned char *blob;
    int64_t nb = fv_instance_blob(c->instance, &blob);
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
    void *other;
    if (check_state(c, (const unsigned char *)b, n, "fmi2DeSerializeFMUstate", &other) != fmi2OK) return fmi2Error;
    fv_instance_free(other);
    State *st = (State *)malloc(sizeof(State) + n);
    if (!st) return fail(c, fmi2Error, "fmi2DeSerializeFMUstate: out of memory");
    st->n = n;
    memcpy(st->bytes, b, n);
    *s = st;                    /* a new state (FMI 2.0: *s on entry is not one to reuse) */
    return fmi2OK;
}

/* ---- Model Exchange ---------------------------------------------------------------------------------------- */
#include "fmi2_me.c"
