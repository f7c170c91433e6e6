/* The FMI 3.0 Co-Simulation layer of a native vehicle FMU (fmu_vehicle.native.fmu, fmi_version=3): a thin adapter
 * over the FMI 2.0 layer (fmi2_native.c), compiled into the same library with its fmi2* functions hidden
 * (FMI_API defined empty), so that only the fmi3* functions below are exported. Nothing of the model, the
 * stepping, the checks or the FMU state lives here: each fmi3 function translates its arguments and calls the
 * fmi2 function that does the work, so both versions compute the same bits.
 *
 *   fmi3InstantiateCoSimulation  -> fmi2Instantiate (the instantiationToken is the GUID; the resource folder as
 *                                   a file URI; the FMI 3 logger behind an FMI 2 logger)
 *   fmi3EnterInitializationMode  -> fmi2SetupExperiment + fmi2EnterInitializationMode
 *   fmi3DoStep                   -> fmi2DoStep, then lastSuccessfulTime and terminateSimulation from
 *                                   fmi2GetRealStatus / fmi2GetBooleanStatus; no events, never an early return
 *   fmi3Get/SetFloat64           -> fmi2Get/SetReal (and the independent variable time, value reference
 *                                   FV3_TIME_VR, read from the FMU's time)
 *   fmi3Get/SetInt64             -> fmi2Get/SetInteger for an Enumeration (its item value), fmi3Get/SetInt32
 *                                   for an Integer; fmi3Get/SetBoolean, fmi3Get/SetString alike
 *   fmi3 FMU state functions     -> the fmi2 ones (the same serialized state)
 *
 * The FMU has no arrays, clocks, events, structural parameters or derivatives: those functions return fmi3Error
 * with a message. A value reference of another type is refused before anything is set, naming the variable.
 * The generated header fv_fmi3_config.h (fmu_vehicle/native/fmu.py, from the same variable table as the
 * modelDescription) gives the FMI 3.0 type and the name of every value reference.
 */
#include <limits.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#ifdef _WIN32
#define FMI3_API __declspec(dllexport)
#else
#define FMI3_API __attribute__((visibility("default")))
#endif

/* ---- FMI 3.0 types (fmi3PlatformTypes.h, fmi3FunctionTypes.h of the standard) ---------------------------- */
typedef void *fmi3Instance;
typedef void *fmi3InstanceEnvironment;
typedef void *fmi3FMUState;
typedef uint32_t fmi3ValueReference;
typedef float fmi3Float32;
typedef double fmi3Float64;
typedef int8_t fmi3Int8;
typedef uint8_t fmi3UInt8;
typedef int16_t fmi3Int16;
typedef uint16_t fmi3UInt16;
typedef int32_t fmi3Int32;
typedef uint32_t fmi3UInt32;
typedef int64_t fmi3Int64;
typedef uint64_t fmi3UInt64;
typedef bool fmi3Boolean;
typedef char fmi3Char;
typedef const fmi3Char *fmi3String;
typedef uint8_t fmi3Byte;
typedef const fmi3Byte *fmi3Binary;
typedef bool fmi3Clock;
typedef enum { fmi3OK, fmi3Warning, fmi3Discard, fmi3Error, fmi3Fatal } fmi3Status;
typedef int fmi3DependencyKind;
typedef int fmi3IntervalQualifier;
typedef void (*fmi3LogMessageCallback)(fmi3InstanceEnvironment, fmi3Status, fmi3String, fmi3String);
typedef void (*fmi3Callback)(void);      /* the callbacks this FMU never calls (intermediate update, clocks) */

/* ---- the FMI 2.0 layer (fmi2_native.c) ------------------------------------------------------------------- */
typedef void *fmi2Component;
typedef void *fmi2ComponentEnvironment;
typedef const char *fmi2String;
typedef int fmi2Boolean;
typedef int fmi2Integer;
typedef unsigned int fmi2ValueReference;
typedef enum { fmi2OK, fmi2Warning, fmi2Discard, fmi2Error, fmi2Fatal, fmi2Pending } fmi2Status;
typedef enum { fmi2ModelExchange, fmi2CoSimulation } fmi2Type;
typedef enum { fmi2DoStepStatus, fmi2PendingStatus, fmi2LastSuccessfulTime, fmi2Terminated } fmi2StatusKind;
typedef void (*fmi2CallbackLogger)(fmi2ComponentEnvironment, fmi2String, fmi2Status, fmi2String, fmi2String, ...);
typedef struct {
    fmi2CallbackLogger logger;
    void *(*allocateMemory)(size_t, size_t);
    void (*freeMemory)(void *);
    void (*stepFinished)(fmi2ComponentEnvironment, fmi2Status);
    fmi2ComponentEnvironment componentEnvironment;
} fmi2CallbackFunctions;   /* the layout of FMI 2.0's (whose members are const) */

fmi2Component fmi2Instantiate(fmi2String, fmi2Type, fmi2String, fmi2String, const fmi2CallbackFunctions *, fmi2Boolean,
                              fmi2Boolean);
void fmi2FreeInstance(fmi2Component);
fmi2Status fmi2SetDebugLogging(fmi2Component, fmi2Boolean, size_t, const fmi2String[]);
fmi2Status fmi2SetupExperiment(fmi2Component, fmi2Boolean, double, double, fmi2Boolean, double);
fmi2Status fmi2EnterInitializationMode(fmi2Component);
fmi2Status fmi2ExitInitializationMode(fmi2Component);
fmi2Status fmi2Terminate(fmi2Component);
fmi2Status fmi2Reset(fmi2Component);
fmi2Status fmi2GetReal(fmi2Component, const fmi2ValueReference[], size_t, double[]);
fmi2Status fmi2SetReal(fmi2Component, const fmi2ValueReference[], size_t, const double[]);
fmi2Status fmi2GetInteger(fmi2Component, const fmi2ValueReference[], size_t, fmi2Integer[]);
fmi2Status fmi2SetInteger(fmi2Component, const fmi2ValueReference[], size_t, const fmi2Integer[]);
fmi2Status fmi2GetBoolean(fmi2Component, const fmi2ValueReference[], size_t, fmi2Boolean[]);
fmi2Status fmi2SetBoolean(fmi2Component, const fmi2ValueReference[], size_t, const fmi2Boolean[]);
fmi2Status fmi2GetString(fmi2Component, const fmi2ValueReference[], size_t, fmi2String[]);
fmi2Status fmi2SetString(fmi2Component, const fmi2ValueReference[], size_t, const fmi2String[]);
fmi2Status fmi2DoStep(fmi2Component, double, double, fmi2Boolean);
fmi2Status fmi2GetRealStatus(fmi2Component, const fmi2StatusKind, double *);
fmi2Status fmi2GetBooleanStatus(fmi2Component, const fmi2StatusKind, fmi2Boolean *);
fmi2Status fmi2GetFMUstate(fmi2Component, void **);
fmi2Status fmi2SetFMUstate(fmi2Component, void *);
fmi2Status fmi2FreeFMUstate(fmi2Component, void **);
fmi2Status fmi2SerializedFMUstateSize(fmi2Component, void *, size_t *);
fmi2Status fmi2SerializeFMUstate(fmi2Component, void *, char[], size_t);
fmi2Status fmi2DeSerializeFMUstate(fmi2Component, const char[], size_t, void **);

/* ---- the generated type table ---------------------------------------------------------------------------- */
enum { V3_FLOAT64, V3_INT32, V3_ENUMERATION, V3_BOOLEAN, V3_STRING };
typedef struct {
    int type;                 /* V3_*: the FMI 3.0 type of the value reference (its position in FV3_VARS) */
    const char *name;
} fv3_var;

#include "fv_fmi3_config.h"
/* defines FV3_N_VARS, FV3_VARS[] (the value references 0 .. FV3_N_VARS - 1 of the FMI 2.0 layer) and FV3_TIME_VR
 * (the independent variable time, FMI 3.0 only) */

static const char *const TYPE_NAMES[] = {"Float64", "Int32", "Enumeration", "Boolean", "String"};

typedef struct {
    fmi2Component inner;                 /* the FMI 2.0 layer's instance */
    fmi3InstanceEnvironment env;
    fmi3LogMessageCallback log;
    fmi2CallbackFunctions callbacks;     /* handed to fmi2Instantiate: its logger is log_fmi2 below */
} Inst;

/* ---- messages -------------------------------------------------------------------------------------------- */
/* the FMI 2.0 function a message of the shared layer names -> the FMI 3.0 function the host called */
static const char *const RENAMES[][2] = {
    {"fmi2Instantiate", "fmi3InstantiateCoSimulation"}, {"fmi2SetupExperiment", "fmi3EnterInitializationMode"},
    {"fmi2EnterInitializationMode", "fmi3EnterInitializationMode"},
    {"fmi2ExitInitializationMode", "fmi3ExitInitializationMode"}, {"fmi2DoStep", "fmi3DoStep"},
    {"fmi2GetReal", "fmi3GetFloat64"}, {"fmi2SetReal", "fmi3SetFloat64"}, {"fmi2GetInteger", "fmi3GetInt64"},
    {"fmi2SetInteger", "fmi3SetInt64"}, {"fmi2GetBoolean", "fmi3GetBoolean"}, {"fmi2SetBoolean", "fmi3SetBoolean"},
    {"fmi2GetString", "fmi3GetString"}, {"fmi2SetString", "fmi3SetString"}, {"fmi2GetFMUstate", "fmi3GetFMUState"},
    {"fmi2SetFMUstate", "fmi3SetFMUState"}, {"fmi2SerializeFMUstate", "fmi3SerializeFMUState"},
    {"fmi2DeSerializeFMUstate", "fmi3DeserializeFMUState"},
};

/* out = text with each fmi2 function name of RENAMES replaced by its FMI 3.0 one */
static void rename_functions(const char *text, char *out, size_t size) {
    size_t k = 0;
    while (*text && k + 1 < size) {
        const char *to = NULL;
        size_t from = 0;
        if (strncmp(text, "fmi2", 4) == 0) {
            for (size_t i = 0; i < sizeof RENAMES / sizeof RENAMES[0]; i++) {
                size_t n = strlen(RENAMES[i][0]);
                char next = text[n];
                if (strncmp(text, RENAMES[i][0], n) == 0 && !(next == '_' || (next >= 'A' && next <= 'Z') ||
                                                                (next >= 'a' && next <= 'z'))) {
                    to = RENAMES[i][1];
                    from = n;
                    break;
                }
            }
        }
        if (to) {
            for (; *to && k + 1 < size; to++) out[k++] = *to;
            text += from;
        } else {
            out[k++] = *text++;
        }
    }
    out[k] = 0;
}

/* The FMI 2.0 logger the shared layer calls: its message is a format (with '%' doubled), formatted here, then
 * handed to the FMI 3.0 callback (not variadic). */
static void log_fmi2(fmi2ComponentEnvironment env, fmi2String instanceName, fmi2Status status, fmi2String category,
                 fmi2String message, ...) {
    (void)instanceName;
    Inst *in = (Inst *)env;
    if (!in || !in->log) return;
    char text[2600], renamed[2800];
    va_list ap;
    va_start(ap, message);
    vsnprintf(text, sizeof text, message ? message : "", ap);
    va_end(ap);
    rename_functions(text, renamed, sizeof renamed);
    in->log(in->env, status == fmi2Pending ? fmi3Error : (fmi3Status)status, category, renamed);
}

static fmi3Status refuse(Inst *in, const char *fmt, ...) {
    if (in && in->log) {
        char text[1200];
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(text, sizeof text, fmt, ap);
        va_end(ap);
        in->log(in->env, fmi3Error, "logStatusError", text);
    }
    return fmi3Error;
}

/* fmi3OK if every value reference names a variable of the FMI 3.0 type `type` (and nValues, as the FMU has no
 * arrays, equals their number), else fmi3Error naming the first that does not. The independent variable time
 * is a Float64 that can be read, not set. */
static fmi3Status check(Inst *in, const char *fn, int type, const fmi3ValueReference vr[], size_t nvr,
                        size_t nValues, int setting) {
    if (!in) return fmi3Error;
    if (nValues != nvr)
        return refuse(in, "%s: nValues %zu is not nValueReferences %zu (the FMU has no array variables)", fn, nValues,
                      nvr);
    for (size_t i = 0; i < nvr; i++) {
        if (vr[i] == FV3_TIME_VR && type == V3_FLOAT64) {
            if (setting) return refuse(in, "%s: 'time' is the independent variable: it cannot be set", fn);
            continue;
        }
        if (vr[i] >= FV3_N_VARS)
            return refuse(in, "%s: value reference %u is not a variable of this FMU", fn, (unsigned)vr[i]);
        if (FV3_VARS[vr[i]].type != type)
            return refuse(in, "%s: value reference %u is '%s' (%s), not a %s variable", fn, (unsigned)vr[i],
                          FV3_VARS[vr[i]].name, TYPE_NAMES[FV3_VARS[vr[i]].type], TYPE_NAMES[type]);
    }
    return fmi3OK;
}

static fmi3Status status3(fmi2Status s) { return s == fmi2Pending ? fmi3Error : (fmi3Status)s; }

/* ---- inquiry, instantiation ------------------------------------------------------------------------------ */
FMI3_API const char *fmi3GetVersion(void) { return "3.0"; }

FMI3_API fmi3Status fmi3SetDebugLogging(fmi3Instance instance, fmi3Boolean loggingOn, size_t nCategories,
                                        const fmi3String categories[]) {
    Inst *in = (Inst *)instance;
    return in ? status3(fmi2SetDebugLogging(in->inner, loggingOn, nCategories, categories)) : fmi3Error;
}

/* the resource folder (an absolute path) as the file URI fmi2Instantiate reads: '%' percent-encoded */
static char *resource_uri(const char *path) {
    if (!path) return NULL;
    size_t n = strlen(path);
    char *uri = (char *)malloc(8 + 3 * n + 1);
    if (!uri) return NULL;
    strcpy(uri, "file://");
    char *p = uri + 7;
    for (const char *s = path; *s; s++) {
        if (*s == '%') { memcpy(p, "%25", 3); p += 3; } else { *p++ = *s; }
    }
    *p = 0;
    return uri;
}

FMI3_API fmi3Instance fmi3InstantiateCoSimulation(
    fmi3String instanceName, fmi3String instantiationToken, fmi3String resourcePath, fmi3Boolean visible,
    fmi3Boolean loggingOn, fmi3Boolean eventModeUsed, fmi3Boolean earlyReturnAllowed,
    const fmi3ValueReference requiredIntermediateVariables[], size_t nRequiredIntermediateVariables,
    fmi3InstanceEnvironment instanceEnvironment, fmi3LogMessageCallback logMessage, fmi3Callback intermediateUpdate) {
    (void)earlyReturnAllowed; (void)requiredIntermediateVariables; (void)intermediateUpdate;
    Inst *in = (Inst *)calloc(1, sizeof(Inst));
    if (!in) return NULL;
    in->env = instanceEnvironment;
    in->log = logMessage;
    if (eventModeUsed) {
        refuse(in, "fmi3InstantiateCoSimulation: eventModeUsed: this FMU has no event mode (hasEventMode=false)");
        free(in);
        return NULL;
    }
    if (nRequiredIntermediateVariables) {
        refuse(in, "fmi3InstantiateCoSimulation: %zu required intermediate variables: this FMU provides no "
               "intermediate update (providesIntermediateUpdate=false)", nRequiredIntermediateVariables);
        free(in);
        return NULL;
    }
    in->callbacks.logger = log_fmi2;
    in->callbacks.componentEnvironment = in;
    char *uri = resource_uri(resourcePath);
    in->inner = fmi2Instantiate(instanceName, fmi2CoSimulation, instantiationToken, uri, &in->callbacks, visible,
                                loggingOn);
    free(uri);
    if (!in->inner) { free(in); return NULL; }
    return in;
}

FMI3_API fmi3Instance fmi3InstantiateModelExchange(fmi3String instanceName, fmi3String instantiationToken,
                                                   fmi3String resourcePath, fmi3Boolean visible, fmi3Boolean loggingOn,
                                                   fmi3InstanceEnvironment instanceEnvironment,
                                                   fmi3LogMessageCallback logMessage) {
    (void)instanceName; (void)instantiationToken; (void)resourcePath; (void)visible; (void)loggingOn;
    if (logMessage)
        logMessage(instanceEnvironment, fmi3Error, "logStatusError",
                   "fmi3InstantiateModelExchange: this FMU is Co-Simulation only");
    return NULL;
}

FMI3_API fmi3Instance fmi3InstantiateScheduledExecution(
    fmi3String instanceName, fmi3String instantiationToken, fmi3String resourcePath, fmi3Boolean visible,
    fmi3Boolean loggingOn, fmi3InstanceEnvironment instanceEnvironment, fmi3LogMessageCallback logMessage,
    fmi3Callback clockUpdate, fmi3Callback lockPreemption, fmi3Callback unlockPreemption) {
    (void)instanceName; (void)instantiationToken; (void)resourcePath; (void)visible; (void)loggingOn;
    (void)clockUpdate; (void)lockPreemption; (void)unlockPreemption;
    if (logMessage)
        logMessage(instanceEnvironment, fmi3Error, "logStatusError",
                   "fmi3InstantiateScheduledExecution: this FMU is Co-Simulation only");
    return NULL;
}

FMI3_API void fmi3FreeInstance(fmi3Instance instance) {
    Inst *in = (Inst *)instance;
    if (!in) return;
    fmi2FreeInstance(in->inner);
    free(in);
}

/* ---- life cycle ------------------------------------------------------------------------------------------ */
FMI3_API fmi3Status fmi3EnterInitializationMode(fmi3Instance instance, fmi3Boolean toleranceDefined,
                                                fmi3Float64 tolerance, fmi3Float64 startTime,
                                                fmi3Boolean stopTimeDefined, fmi3Float64 stopTime) {
    Inst *in = (Inst *)instance;
    if (!in) return fmi3Error;
    fmi2Status s = fmi2SetupExperiment(in->inner, toleranceDefined, tolerance, startTime, stopTimeDefined, stopTime);
    return status3(s == fmi2OK ? fmi2EnterInitializationMode(in->inner) : s);
}

FMI3_API fmi3Status fmi3ExitInitializationMode(fmi3Instance instance) {
    Inst *in = (Inst *)instance;
    return in ? status3(fmi2ExitInitializationMode(in->inner)) : fmi3Error;
}

FMI3_API fmi3Status fmi3Terminate(fmi3Instance instance) {
    Inst *in = (Inst *)instance;
    return in ? status3(fmi2Terminate(in->inner)) : fmi3Error;
}

FMI3_API fmi3Status fmi3Reset(fmi3Instance instance) {
    Inst *in = (Inst *)instance;
    return in ? status3(fmi2Reset(in->inner)) : fmi3Error;
}

FMI3_API fmi3Status fmi3DoStep(fmi3Instance instance, fmi3Float64 currentCommunicationPoint,
                               fmi3Float64 communicationStepSize, fmi3Boolean noSetFMUStatePriorToCurrentPoint,
                               fmi3Boolean *eventHandlingNeeded, fmi3Boolean *terminateSimulation,
                               fmi3Boolean *earlyReturn, fmi3Float64 *lastSuccessfulTime) {
    Inst *in = (Inst *)instance;
    if (!in) return fmi3Error;
    fmi2Status s = fmi2DoStep(in->inner, currentCommunicationPoint, communicationStepSize,
                              noSetFMUStatePriorToCurrentPoint);
    fmi2Boolean failed = 0;
    double t = currentCommunicationPoint;
    fmi2GetBooleanStatus(in->inner, fmi2Terminated, &failed);     /* a failed step: the run cannot go on */
    fmi2GetRealStatus(in->inner, fmi2LastSuccessfulTime, &t);      /* the FMU's time after the step */
    if (eventHandlingNeeded) *eventHandlingNeeded = false;
    if (terminateSimulation) *terminateSimulation = failed != 0;
    if (earlyReturn) *earlyReturn = false;
    if (lastSuccessfulTime) *lastSuccessfulTime = t;
    return status3(s);
}

/* ---- get / set ------------------------------------------------------------------------------------------- */
FMI3_API fmi3Status fmi3GetFloat64(fmi3Instance instance, const fmi3ValueReference vr[], size_t nvr,
                                   fmi3Float64 values[], size_t nValues) {
    Inst *in = (Inst *)instance;
    if (check(in, "fmi3GetFloat64", V3_FLOAT64, vr, nvr, nValues, 0) != fmi3OK) return fmi3Error;
    size_t n_time = 0;
    for (size_t i = 0; i < nvr; i++) n_time += vr[i] == FV3_TIME_VR;
    if (!n_time) return status3(fmi2GetReal(in->inner, vr, nvr, values));
    /* with time among them: the others in one call of the FMI 2.0 layer (in initialization mode each call
     * evaluates the initial outputs), time from its status */
    size_t n = nvr - n_time;
    fmi2ValueReference *refs = (fmi2ValueReference *)malloc((n ? n : 1) * sizeof *refs);
    double *got = (double *)malloc((n ? n : 1) * sizeof *got);
    if (!refs || !got) { free(refs); free(got); return refuse(in, "fmi3GetFloat64: out of memory"); }
    for (size_t i = 0, k = 0; i < nvr; i++) if (vr[i] != FV3_TIME_VR) refs[k++] = vr[i];
    fmi2Status s = n ? fmi2GetReal(in->inner, refs, n, got) : fmi2OK;
    double t = 0.0;
    if (s == fmi2OK) s = fmi2GetRealStatus(in->inner, fmi2LastSuccessfulTime, &t);
    for (size_t i = 0, k = 0; s == fmi2OK && i < nvr; i++) values[i] = vr[i] == FV3_TIME_VR ? t : got[k++];
    free(refs);
    free(got);
    return status3(s);
}

FMI3_API fmi3Status fmi3SetFloat64(fmi3Instance instance, const fmi3ValueReference vr[], size_t nvr,
                                   const fmi3Float64 values[], size_t nValues) {
    Inst *in = (Inst *)instance;
    if (check(in, "fmi3SetFloat64", V3_FLOAT64, vr, nvr, nValues, 1) != fmi3OK) return fmi3Error;
    return status3(fmi2SetReal(in->inner, vr, nvr, values));
}

FMI3_API fmi3Status fmi3GetInt32(fmi3Instance instance, const fmi3ValueReference vr[], size_t nvr, fmi3Int32 values[],
                                 size_t nValues) {
    Inst *in = (Inst *)instance;
    if (check(in, "fmi3GetInt32", V3_INT32, vr, nvr, nValues, 0) != fmi3OK) return fmi3Error;
    return status3(fmi2GetInteger(in->inner, vr, nvr, (fmi2Integer *)values));
}

FMI3_API fmi3Status fmi3SetInt32(fmi3Instance instance, const fmi3ValueReference vr[], size_t nvr,
                                 const fmi3Int32 values[], size_t nValues) {
    Inst *in = (Inst *)instance;
    if (check(in, "fmi3SetInt32", V3_INT32, vr, nvr, nValues, 1) != fmi3OK) return fmi3Error;
    return status3(fmi2SetInteger(in->inner, vr, nvr, (const fmi2Integer *)values));
}

#define CHUNK 64     /* values converted between the FMI 3.0 and FMI 2.0 types in chunks: no allocation */

/* an Enumeration: its item value, an Integer of the FMI 2.0 layer */
FMI3_API fmi3Status fmi3GetInt64(fmi3Instance instance, const fmi3ValueReference vr[], size_t nvr, fmi3Int64 values[],
                                 size_t nValues) {
    Inst *in = (Inst *)instance;
    if (check(in, "fmi3GetInt64", V3_ENUMERATION, vr, nvr, nValues, 0) != fmi3OK) return fmi3Error;
    fmi2Integer got[CHUNK];
    for (size_t start = 0; start < nvr; start += CHUNK) {
        size_t n = nvr - start < CHUNK ? nvr - start : CHUNK;
        fmi2Status s = fmi2GetInteger(in->inner, vr + start, n, got);
        if (s != fmi2OK) return status3(s);
        for (size_t i = 0; i < n; i++) values[start + i] = got[i];
    }
    return fmi3OK;
}

FMI3_API fmi3Status fmi3SetInt64(fmi3Instance instance, const fmi3ValueReference vr[], size_t nvr,
                                 const fmi3Int64 values[], size_t nValues) {
    Inst *in = (Inst *)instance;
    if (check(in, "fmi3SetInt64", V3_ENUMERATION, vr, nvr, nValues, 1) != fmi3OK) return fmi3Error;
    for (size_t i = 0; i < nvr; i++)
        if (values[i] < INT_MIN || values[i] > INT_MAX)
            return refuse(in, "fmi3SetInt64: '%s' = %lld is not an item value of its enumeration", FV3_VARS[vr[i]].name,
                          (long long)values[i]);
    fmi2Integer put[CHUNK];
    for (size_t start = 0; start < nvr; start += CHUNK) {
        size_t n = nvr - start < CHUNK ? nvr - start : CHUNK;
        for (size_t i = 0; i < n; i++) put[i] = (fmi2Integer)values[start + i];
        fmi2Status s = fmi2SetInteger(in->inner, vr + start, n, put);
        if (s != fmi2OK) return status3(s);
    }
    return fmi3OK;
}

FMI3_API fmi3Status fmi3GetBoolean(fmi3Instance instance, const fmi3ValueReference vr[], size_t nvr,
                                   fmi3Boolean values[], size_t nValues) {
    Inst *in = (Inst *)instance;
    if (check(in, "fmi3GetBoolean", V3_BOOLEAN, vr, nvr, nValues, 0) != fmi3OK) return fmi3Error;
    fmi2Boolean got[CHUNK];
    for (size_t start = 0; start < nvr; start += CHUNK) {
        size_t n = nvr - start < CHUNK ? nvr - start : CHUNK;
        fmi2Status s = fmi2GetBoolean(in->inner, vr + start, n, got);
        if (s != fmi2OK) return status3(s);
        for (size_t i = 0; i < n; i++) values[start + i] = got[i] != 0;
    }
    return fmi3OK;
}

FMI3_API fmi3Status fmi3SetBoolean(fmi3Instance instance, const fmi3ValueReference vr[], size_t nvr,
                                   const fmi3Boolean values[], size_t nValues) {
    Inst *in = (Inst *)instance;
    if (check(in, "fmi3SetBoolean", V3_BOOLEAN, vr, nvr, nValues, 1) != fmi3OK) return fmi3Error;
    fmi2Boolean put[CHUNK];
    for (size_t start = 0; start < nvr; start += CHUNK) {
        size_t n = nvr - start < CHUNK ? nvr - start : CHUNK;
        for (size_t i = 0; i < n; i++) put[i] = values[start + i] ? 1 : 0;
        fmi2Status s = fmi2SetBoolean(in->inner, vr + start, n, put);
        if (s != fmi2OK) return status3(s);
    }
    return fmi3OK;
}

FMI3_API fmi3Status fmi3GetString(fmi3Instance instance, const fmi3ValueReference vr[], size_t nvr,
                                  fmi3String values[], size_t nValues) {
    Inst *in = (Inst *)instance;
    if (check(in, "fmi3GetString", V3_STRING, vr, nvr, nValues, 0) != fmi3OK) return fmi3Error;
    return status3(fmi2GetString(in->inner, vr, nvr, values));
}

FMI3_API fmi3Status fmi3SetString(fmi3Instance instance, const fmi3ValueReference vr[], size_t nvr,
                                  const fmi3String values[], size_t nValues) {
    Inst *in = (Inst *)instance;
    if (check(in, "fmi3SetString", V3_STRING, vr, nvr, nValues, 1) != fmi3OK) return fmi3Error;
    return status3(fmi2SetString(in->inner, vr, nvr, values));
}

/* the types this FMU has no variable of: any value reference is refused */
static fmi3Status no_such_type(fmi3Instance instance, const char *fn, const char *type, const fmi3ValueReference vr[],
                               size_t nvr) {
    Inst *in = (Inst *)instance;
    if (!in) return fmi3Error;
    if (!nvr) return fmi3OK;
    if (vr[0] < FV3_N_VARS)
        return refuse(in, "%s: value reference %u is '%s' (%s); this FMU has no %s variables", fn,
                      (unsigned)vr[0], FV3_VARS[vr[0]].name, TYPE_NAMES[FV3_VARS[vr[0]].type], type);
    return refuse(in, "%s: value reference %u: this FMU has no %s variables", fn, (unsigned)vr[0], type);
}

#define NO_VARIABLES(TYPE, CTYPE)                                                                                \
    FMI3_API fmi3Status fmi3Get##TYPE(fmi3Instance instance, const fmi3ValueReference vr[], size_t nvr,          \
                                      CTYPE values[], size_t nValues) {                                          \
        (void)values; (void)nValues;                                                                             \
        return no_such_type(instance, "fmi3Get" #TYPE, #TYPE, vr, nvr);                                          \
    }                                                                                                            \
    FMI3_API fmi3Status fmi3Set##TYPE(fmi3Instance instance, const fmi3ValueReference vr[], size_t nvr,          \
                                      const CTYPE values[], size_t nValues) {                                    \
        (void)values; (void)nValues;                                                                             \
        return no_such_type(instance, "fmi3Set" #TYPE, #TYPE, vr, nvr);                                          \
    }
NO_VARIABLES(Float32, fmi3Float32)
NO_VARIABLES(Int8, fmi3Int8)
NO_VARIABLES(UInt8, fmi3UInt8)
NO_VARIABLES(Int16, fmi3Int16)
NO_VARIABLES(UInt16, fmi3UInt16)
NO_VARIABLES(UInt32, fmi3UInt32)
NO_VARIABLES(UInt64, fmi3UInt64)

FMI3_API fmi3Status fmi3GetBinary(fmi3Instance instance, const fmi3ValueReference vr[], size_t nvr,
                                  size_t valueSizes[], fmi3Binary values[], size_t nValues) {
    (void)valueSizes; (void)values; (void)nValues;
    return no_such_type(instance, "fmi3GetBinary", "Binary", vr, nvr);
}

FMI3_API fmi3Status fmi3SetBinary(fmi3Instance instance, const fmi3ValueReference vr[], size_t nvr,
                                  const size_t valueSizes[], const fmi3Binary values[], size_t nValues) {
    (void)valueSizes; (void)values; (void)nValues;
    return no_such_type(instance, "fmi3SetBinary", "Binary", vr, nvr);
}

FMI3_API fmi3Status fmi3GetClock(fmi3Instance instance, const fmi3ValueReference vr[], size_t nvr, fmi3Clock values[]) {
    (void)values;
    return no_such_type(instance, "fmi3GetClock", "Clock", vr, nvr);
}

FMI3_API fmi3Status fmi3SetClock(fmi3Instance instance, const fmi3ValueReference vr[], size_t nvr,
                                 const fmi3Clock values[]) {
    (void)values;
    return no_such_type(instance, "fmi3SetClock", "Clock", vr, nvr);
}

/* ---- FMU state: the FMI 2.0 layer's, serialized alike ----------------------------------------------------- */
FMI3_API fmi3Status fmi3GetFMUState(fmi3Instance instance, fmi3FMUState *state) {
    Inst *in = (Inst *)instance;
    return in ? status3(fmi2GetFMUstate(in->inner, state)) : fmi3Error;
}

FMI3_API fmi3Status fmi3SetFMUState(fmi3Instance instance, fmi3FMUState state) {
    Inst *in = (Inst *)instance;
    return in ? status3(fmi2SetFMUstate(in->inner, state)) : fmi3Error;
}

FMI3_API fmi3Status fmi3FreeFMUState(fmi3Instance instance, fmi3FMUState *state) {
    Inst *in = (Inst *)instance;
    return in ? status3(fmi2FreeFMUstate(in->inner, state)) : fmi3Error;
}

FMI3_API fmi3Status fmi3SerializedFMUStateSize(fmi3Instance instance, fmi3FMUState state, size_t *size) {
    Inst *in = (Inst *)instance;
    return in ? status3(fmi2SerializedFMUstateSize(in->inner, state, size)) : fmi3Error;
}

FMI3_API fmi3Status fmi3SerializeFMUState(fmi3Instance instance, fmi3FMUState state, fmi3Byte serializedState[],
                                          size_t size) {
    Inst *in = (Inst *)instance;
    return in ? status3(fmi2SerializeFMUstate(in->inner, state, (char *)serializedState, size)) : fmi3Error;
}

FMI3_API fmi3Status fmi3DeserializeFMUState(fmi3Instance instance, const fmi3Byte serializedState[], size_t size,
                                            fmi3FMUState *state) {
    Inst *in = (Inst *)instance;
    return in ? status3(fmi2DeSerializeFMUstate(in->inner, (const char *)serializedState, size, state)) : fmi3Error;
}

/* ---- what this FMU does not have: refused with a message ------------------------------------------------- */
static fmi3Status unsupported(fmi3Instance instance, const char *fn, const char *why) {
    return refuse((Inst *)instance, "%s: not supported: %s", fn, why);
}

#define NO_EVENTS "this Co-Simulation FMU has no event mode (hasEventMode=false)"
#define CS_ONLY "this FMU is Co-Simulation only"
#define NO_CLOCKS "this FMU has no clocks"

FMI3_API fmi3Status fmi3EnterEventMode(fmi3Instance instance) {
    return unsupported(instance, "fmi3EnterEventMode", NO_EVENTS);
}

FMI3_API fmi3Status fmi3EnterStepMode(fmi3Instance instance) {
    return unsupported(instance, "fmi3EnterStepMode", NO_EVENTS);
}

FMI3_API fmi3Status fmi3UpdateDiscreteStates(fmi3Instance instance, fmi3Boolean *discreteStatesNeedUpdate,
                                             fmi3Boolean *terminateSimulation,
                                             fmi3Boolean *nominalsOfContinuousStatesChanged,
                                             fmi3Boolean *valuesOfContinuousStatesChanged,
                                             fmi3Boolean *nextEventTimeDefined, fmi3Float64 *nextEventTime) {
    (void)discreteStatesNeedUpdate; (void)terminateSimulation; (void)nominalsOfContinuousStatesChanged;
    (void)valuesOfContinuousStatesChanged; (void)nextEventTimeDefined; (void)nextEventTime;
    return unsupported(instance, "fmi3UpdateDiscreteStates", NO_EVENTS);
}

FMI3_API fmi3Status fmi3EvaluateDiscreteStates(fmi3Instance instance) {
    return unsupported(instance, "fmi3EvaluateDiscreteStates", NO_EVENTS);
}

FMI3_API fmi3Status fmi3EnterConfigurationMode(fmi3Instance instance) {
    return unsupported(instance, "fmi3EnterConfigurationMode", "this FMU has no structural parameters");
}

FMI3_API fmi3Status fmi3ExitConfigurationMode(fmi3Instance instance) {
    return unsupported(instance, "fmi3ExitConfigurationMode", "this FMU has no structural parameters");
}

FMI3_API fmi3Status fmi3GetNumberOfVariableDependencies(fmi3Instance instance, fmi3ValueReference valueReference,
                                                        size_t *nDependencies) {
    (void)valueReference; (void)nDependencies;
    return unsupported(instance, "fmi3GetNumberOfVariableDependencies",
                       "the dependencies are those of ModelStructure in modelDescription.xml");
}

FMI3_API fmi3Status fmi3GetVariableDependencies(fmi3Instance instance, fmi3ValueReference dependent,
                                                size_t elementIndicesOfDependent[], fmi3ValueReference independents[],
                                                size_t elementIndicesOfIndependents[],
                                                fmi3DependencyKind dependencyKinds[], size_t nDependencies) {
    (void)dependent; (void)elementIndicesOfDependent; (void)independents; (void)elementIndicesOfIndependents;
    (void)dependencyKinds; (void)nDependencies;
    return unsupported(instance, "fmi3GetVariableDependencies",
                       "the dependencies are those of ModelStructure in modelDescription.xml");
}

FMI3_API fmi3Status fmi3GetDirectionalDerivative(fmi3Instance instance, const fmi3ValueReference unknowns[],
                                                 size_t nUnknowns, const fmi3ValueReference knowns[], size_t nKnowns,
                                                 const fmi3Float64 seed[], size_t nSeed, fmi3Float64 sensitivity[],
                                                 size_t nSensitivity) {
    (void)unknowns; (void)nUnknowns; (void)knowns; (void)nKnowns; (void)seed; (void)nSeed; (void)sensitivity;
    (void)nSensitivity;
    return unsupported(instance, "fmi3GetDirectionalDerivative", "providesDirectionalDerivatives=false");
}

FMI3_API fmi3Status fmi3GetAdjointDerivative(fmi3Instance instance, const fmi3ValueReference unknowns[],
                                             size_t nUnknowns, const fmi3ValueReference knowns[], size_t nKnowns,
                                             const fmi3Float64 seed[], size_t nSeed, fmi3Float64 sensitivity[],
                                             size_t nSensitivity) {
    (void)unknowns; (void)nUnknowns; (void)knowns; (void)nKnowns; (void)seed; (void)nSeed; (void)sensitivity;
    (void)nSensitivity;
    return unsupported(instance, "fmi3GetAdjointDerivative", "providesAdjointDerivatives=false");
}

FMI3_API fmi3Status fmi3GetOutputDerivatives(fmi3Instance instance, const fmi3ValueReference vr[], size_t nvr,
                                             const fmi3Int32 orders[], fmi3Float64 values[], size_t nValues) {
    (void)vr; (void)nvr; (void)orders; (void)values; (void)nValues;
    return unsupported(instance, "fmi3GetOutputDerivatives", "maxOutputDerivativeOrder=0");
}

FMI3_API fmi3Status fmi3GetIntervalDecimal(fmi3Instance instance, const fmi3ValueReference vr[], size_t nvr,
                                           fmi3Float64 intervals[], fmi3IntervalQualifier qualifiers[]) {
    (void)vr; (void)nvr; (void)intervals; (void)qualifiers;
    return unsupported(instance, "fmi3GetIntervalDecimal", NO_CLOCKS);
}

FMI3_API fmi3Status fmi3GetIntervalFraction(fmi3Instance instance, const fmi3ValueReference vr[], size_t nvr,
                                            fmi3UInt64 counters[], fmi3UInt64 resolutions[],
                                            fmi3IntervalQualifier qualifiers[]) {
    (void)vr; (void)nvr; (void)counters; (void)resolutions; (void)qualifiers;
    return unsupported(instance, "fmi3GetIntervalFraction", NO_CLOCKS);
}

FMI3_API fmi3Status fmi3GetShiftDecimal(fmi3Instance instance, const fmi3ValueReference vr[], size_t nvr,
                                        fmi3Float64 shifts[]) {
    (void)vr; (void)nvr; (void)shifts;
    return unsupported(instance, "fmi3GetShiftDecimal", NO_CLOCKS);
}

FMI3_API fmi3Status fmi3GetShiftFraction(fmi3Instance instance, const fmi3ValueReference vr[], size_t nvr,
                                         fmi3UInt64 counters[], fmi3UInt64 resolutions[]) {
    (void)vr; (void)nvr; (void)counters; (void)resolutions;
    return unsupported(instance, "fmi3GetShiftFraction", NO_CLOCKS);
}

FMI3_API fmi3Status fmi3SetIntervalDecimal(fmi3Instance instance, const fmi3ValueReference vr[], size_t nvr,
                                           const fmi3Float64 intervals[]) {
    (void)vr; (void)nvr; (void)intervals;
    return unsupported(instance, "fmi3SetIntervalDecimal", NO_CLOCKS);
}

FMI3_API fmi3Status fmi3SetIntervalFraction(fmi3Instance instance, const fmi3ValueReference vr[], size_t nvr,
                                            const fmi3UInt64 counters[], const fmi3UInt64 resolutions[]) {
    (void)vr; (void)nvr; (void)counters; (void)resolutions;
    return unsupported(instance, "fmi3SetIntervalFraction", NO_CLOCKS);
}

FMI3_API fmi3Status fmi3SetShiftDecimal(fmi3Instance instance, const fmi3ValueReference vr[], size_t nvr,
                                        const fmi3Float64 shifts[]) {
    (void)vr; (void)nvr; (void)shifts;
    return unsupported(instance, "fmi3SetShiftDecimal", NO_CLOCKS);
}

FMI3_API fmi3Status fmi3SetShiftFraction(fmi3Instance instance, const fmi3ValueReference vr[], size_t nvr,
                                         const fmi3UInt64 counters[], const fmi3UInt64 resolutions[]) {
    (void)vr; (void)nvr; (void)counters; (void)resolutions;
    return unsupported(instance, "fmi3SetShiftFraction", NO_CLOCKS);
}

FMI3_API fmi3Status fmi3ActivateModelPartition(fmi3Instance instance, fmi3ValueReference clockReference,
                                               fmi3Float64 activationTime) {
    (void)clockReference; (void)activationTime;
    return unsupported(instance, "fmi3ActivateModelPartition", CS_ONLY);
}

/* Model Exchange: this FMU has no ModelExchange element, and fmi3InstantiateModelExchange makes no instance */
FMI3_API fmi3Status fmi3EnterContinuousTimeMode(fmi3Instance instance) {
    return unsupported(instance, "fmi3EnterContinuousTimeMode", CS_ONLY);
}

FMI3_API fmi3Status fmi3CompletedIntegratorStep(fmi3Instance instance, fmi3Boolean noSetFMUStatePriorToCurrentPoint,
                                                fmi3Boolean *enterEventMode, fmi3Boolean *terminateSimulation) {
    (void)noSetFMUStatePriorToCurrentPoint; (void)enterEventMode; (void)terminateSimulation;
    return unsupported(instance, "fmi3CompletedIntegratorStep", CS_ONLY);
}

FMI3_API fmi3Status fmi3SetTime(fmi3Instance instance, fmi3Float64 time) {
    (void)time;
    return unsupported(instance, "fmi3SetTime", CS_ONLY);
}

FMI3_API fmi3Status fmi3SetContinuousStates(fmi3Instance instance, const fmi3Float64 continuousStates[],
                                            size_t nContinuousStates) {
    (void)continuousStates; (void)nContinuousStates;
    return unsupported(instance, "fmi3SetContinuousStates", CS_ONLY);
}

FMI3_API fmi3Status fmi3GetContinuousStateDerivatives(fmi3Instance instance, fmi3Float64 derivatives[],
                                                      size_t nContinuousStates) {
    (void)derivatives; (void)nContinuousStates;
    return unsupported(instance, "fmi3GetContinuousStateDerivatives", CS_ONLY);
}

FMI3_API fmi3Status fmi3GetEventIndicators(fmi3Instance instance, fmi3Float64 eventIndicators[],
                                           size_t nEventIndicators) {
    (void)eventIndicators; (void)nEventIndicators;
    return unsupported(instance, "fmi3GetEventIndicators", CS_ONLY);
}

FMI3_API fmi3Status fmi3GetContinuousStates(fmi3Instance instance, fmi3Float64 continuousStates[],
                                            size_t nContinuousStates) {
    (void)continuousStates; (void)nContinuousStates;
    return unsupported(instance, "fmi3GetContinuousStates", CS_ONLY);
}

FMI3_API fmi3Status fmi3GetNominalsOfContinuousStates(fmi3Instance instance, fmi3Float64 nominals[],
                                                      size_t nContinuousStates) {
    (void)nominals; (void)nContinuousStates;
    return unsupported(instance, "fmi3GetNominalsOfContinuousStates", CS_ONLY);
}

FMI3_API fmi3Status fmi3GetNumberOfEventIndicators(fmi3Instance instance, size_t *nEventIndicators) {
    (void)nEventIndicators;
    return unsupported(instance, "fmi3GetNumberOfEventIndicators", CS_ONLY);
}

FMI3_API fmi3Status fmi3GetNumberOfContinuousStates(fmi3Instance instance, size_t *nContinuousStates) {
    (void)nContinuousStates;
    return unsupported(instance, "fmi3GetNumberOfContinuousStates", CS_ONLY);
}
