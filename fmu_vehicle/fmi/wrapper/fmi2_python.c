/* FMI 2.0 Co-Simulation library that runs an FMU's Python slave (the binary of the Python FMUs).
 *
 * Every fmi2 function of the standard (FMI 2.0.x, Modelica Association, chapters 2 and 4) is forwarded to the
 * Python object ``fmu_vehicle.fmi.wrapper.instance.Fmi2Instance`` (in the FMU's own package copy), which owns
 * the slave (the pythonfmu ``Fmi2Slave`` interface: setup_experiment, enter/exit_initialization_mode, do_step,
 * terminate, get_/set_real/integer/boolean/string, _get_fmu_state/_set_fmu_state and the state serializers).
 * The C side only converts values, holds the GIL and reports statuses:
 *
 *   - a Python exception becomes fmi2Error, its type and text logged (the instance stays usable and is released
 *     by fmi2FreeInstance, never before);
 *   - fmi2ExitInitializationMode returns fmi2Error when the slave's exit_initialization_mode returns False
 *     (it refused the parameters; its message is logged by the slave);
 *   - fmi2DoStep returns fmi2Discard when do_step returns False;
 *   - fmi2GetBooleanStatus(fmi2Terminated) is true while the last step was refused and no step, state or reset
 *     came after it, or while the instance refuses every step (``Fmi2Instance.cannot_continue``).
 *
 * Messages the slave queues are passed to the host's logger after each call: errors and fatal errors always,
 * the others when logging is on (fmi2Instantiate's loggingOn, fmi2SetDebugLogging).
 *
 * The interpreter. In a Python host (FMPy, libcosimpy) the host's running interpreter is used (the GIL taken
 * with PyGILState_Ensure for each call). In another host the first fmi2Instantiate starts one: libpython is
 * made global (RTLD_GLOBAL, for the extension modules it will import), this library is pinned (RTLD_NODELETE),
 * and Python is finalized by an exit handler that is registered again after each instantiation and terminate
 * (exit handlers run in reverse order of registration, so it runs before those of the libraries the model
 * loaded meanwhile, while everything the interpreter's modules use still exists).
 *
 * Written for this project from the FMI 2.0 standard and the Python C API documentation.
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>

#include <dlfcn.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

/* ---------------------------------------------------------------- FMI 2.0 types (fmi2TypesPlatform.h) */
typedef void *fmi2Component;
typedef void *fmi2ComponentEnvironment;
typedef void *fmi2FMUstate;
typedef unsigned int fmi2ValueReference;
typedef double fmi2Real;
typedef int fmi2Integer;
typedef int fmi2Boolean;
typedef char fmi2Char;
typedef const fmi2Char *fmi2String;
typedef char fmi2Byte;

typedef enum { fmi2OK, fmi2Warning, fmi2Discard, fmi2Error, fmi2Fatal, fmi2Pending } fmi2Status;
typedef enum { fmi2ModelExchange, fmi2CoSimulation } fmi2Type;
typedef enum { fmi2DoStepStatus, fmi2PendingStatus, fmi2LastSuccessfulTime, fmi2Terminated } fmi2StatusKind;

typedef void (*fmi2CallbackLogger)(fmi2ComponentEnvironment, fmi2String, fmi2Status, fmi2String, fmi2String, ...);
typedef void *(*fmi2CallbackAllocateMemory)(size_t, size_t);
typedef void (*fmi2CallbackFreeMemory)(void *);
typedef void (*fmi2StepFinished)(fmi2ComponentEnvironment, fmi2Status);
typedef struct {
    fmi2CallbackLogger logger;
    fmi2CallbackAllocateMemory allocateMemory;
    fmi2CallbackFreeMemory freeMemory;
    fmi2StepFinished stepFinished;
    fmi2ComponentEnvironment componentEnvironment;
} fmi2CallbackFunctions;

#define fmi2True 1
#define fmi2False 0
#define EXPORT __attribute__((visibility("default")))

#ifndef FV_PYTHON_HOME
#define FV_PYTHON_HOME ""
#endif

/* ---------------------------------------------------------------- instance */
typedef struct {
    PyObject *py;            /* the Fmi2Instance */
    PyObject *log_queue;     /* its list of queued messages (the slave's) */
    PyObject *strings;       /* the last fmi2GetString result: its texts stay valid until the next one */
    char *name;
    fmi2CallbackLogger logger;
    fmi2ComponentEnvironment env;
    int logging_on;
    int refused;             /* the last doStep returned fmi2Discard and nothing came after it */
    double last_successful_time;
} Instance;

typedef struct {            /* an FMU state: the slave's Python object, and its bytes once serialized */
    PyObject *state;
    PyObject *bytes;
} State;

/* ---------------------------------------------------------------- the interpreter */
static int started_here = 0;            /* this library started the interpreter */
static int finalized = 0;
static PyThreadState *starting_thread_state = NULL;
static pthread_t starting_thread;

static void finalize_python(void)
{
    if (!started_here || finalized || !Py_IsInitialized() || !pthread_equal(pthread_self(), starting_thread))
        return;
    finalized = 1;
    PyEval_RestoreThread(starting_thread_state);
    Py_FinalizeEx();
}

static void finalize_at_exit(void)
{
    if (started_here && !finalized)
        atexit(finalize_python);
}

/* Start an interpreter unless one runs; returns NULL or the reason it could not be started. */
static const char *ensure_python(void)
{
    if (Py_IsInitialized())
        return NULL;
    if (finalized)
        return "the Python interpreter this library started was finalized";
    Dl_info info;
    if (dladdr((void *)&Py_IsInitialized, &info) && info.dli_fname)     /* libpython, for extension modules */
        dlopen(info.dli_fname, RTLD_NOW | RTLD_GLOBAL | RTLD_NOLOAD);
    if (dladdr((void *)&ensure_python, &info) && info.dli_fname)        /* never unloaded under the exit handler */
        dlopen(info.dli_fname, RTLD_NOW | RTLD_NOLOAD | RTLD_NODELETE);
    PyConfig config;
    PyConfig_InitPythonConfig(&config);
    struct stat st;
    PyStatus status = PyStatus_Ok();
    if (!getenv("PYTHONHOME") && FV_PYTHON_HOME[0] && stat(FV_PYTHON_HOME, &st) == 0)
        status = PyConfig_SetBytesString(&config, &config.home, FV_PYTHON_HOME);
    if (!PyStatus_Exception(status))
        status = Py_InitializeFromConfig(&config);
    PyConfig_Clear(&config);
    if (PyStatus_Exception(status))
        return status.err_msg ? status.err_msg : "Py_InitializeFromConfig failed";
    started_here = 1;
    starting_thread = pthread_self();
    starting_thread_state = PyEval_SaveThread();
    return NULL;
}

/* ---------------------------------------------------------------- messages */
/* ``text`` as the logger's format, each '%' doubled (as the slave writes its messages: hosts that format the
 * message and hosts that print it as it is both show the text). */
static void log_text(Instance *c, fmi2Status status, const char *category, const char *text)
{
    if (!c->logger || !(c->logging_on || status >= fmi2Error))
        return;
    char *format = malloc(2 * strlen(text) + 1), *q = format;
    if (!format)
        return;
    for (const char *p = text; *p; p++) {
        *q++ = *p;
        if (*p == '%')
            *q++ = '%';
    }
    *q = '\0';
    c->logger(c->env, c->name, status, category, format);
    free(format);
}

/* Pass the slave's queued messages (each already a printf-safe format) to the logger; GIL held. */
static void forward_messages(Instance *c)
{
    if (!c->log_queue || PyList_GET_SIZE(c->log_queue) == 0)
        return;
    PyObject *items = PyObject_CallMethod(c->py, "take_messages", NULL);
    if (!items) {
        PyErr_Clear();
        return;
    }
    Py_ssize_t n = PyList_Check(items) ? PyList_GET_SIZE(items) : 0;
    for (Py_ssize_t i = 0; i < n; i++) {
        int status;
        const char *category, *text;
        if (!PyArg_ParseTuple(PyList_GET_ITEM(items, i), "iss", &status, &category, &text)) {
            PyErr_Clear();
            continue;
        }
        if (c->logger && (c->logging_on || status >= fmi2Error))
            c->logger(c->env, c->name, (fmi2Status)status, category, text);
    }
    Py_DECREF(items);
}

/* The pending Python exception logged as "<what>: <type>: <text>" with fmi2Error; returns fmi2Error. */
static fmi2Status exception_status(Instance *c, const char *what)
{
    PyObject *type, *value, *tb;
    PyErr_Fetch(&type, &value, &tb);
    PyErr_NormalizeException(&type, &value, &tb);
    PyObject *text = value ? PyObject_Str(value) : NULL;
    const char *name = type ? ((PyTypeObject *)type)->tp_name : "error";
    const char *detail = text ? PyUnicode_AsUTF8(text) : NULL;
    if (!detail) {
        PyErr_Clear();
        detail = "";
    }
    size_t size = strlen(what) + strlen(name) + strlen(detail) + 8;
    char *message = malloc(size);
    if (message) {
        snprintf(message, size, "%s: %s: %s", what, name, detail);
        if (strlen(message) > 400)
            strcpy(message + 396, "...");
        log_text(c, fmi2Error, "logStatusError", message);
        free(message);
    }
    Py_XDECREF(text);
    Py_XDECREF(type);
    Py_XDECREF(value);
    Py_XDECREF(tb);
    return fmi2Error;
}

/* After a call: its result (NULL: the exception) -> status; forwards the messages; consumes the result. */
static fmi2Status finish(Instance *c, PyObject *result, const char *what)
{
    fmi2Status status = result ? fmi2OK : exception_status(c, what);
    Py_XDECREF(result);
    forward_messages(c);
    return status;
}

#define ENTER(c) Instance *c = (Instance *)component; if (!c || !c->py) return fmi2Error; \
    PyGILState_STATE gil_ = PyGILState_Ensure()
#define LEAVE(status) do { fmi2Status s_ = (status); PyGILState_Release(gil_); return s_; } while (0)

static PyObject *references(const fmi2ValueReference vr[], size_t nvr)
{
    PyObject *list = PyList_New((Py_ssize_t)nvr);
    for (size_t i = 0; list && i < nvr; i++) {
        PyObject *item = PyLong_FromUnsignedLong(vr[i]);
        if (!item) {
            Py_CLEAR(list);
            break;
        }
        PyList_SET_ITEM(list, (Py_ssize_t)i, item);
    }
    return list;
}

/* ---------------------------------------------------------------- life cycle */
EXPORT const char *fmi2GetTypesPlatform(void) { return "default"; }
EXPORT const char *fmi2GetVersion(void) { return "2.0"; }

/* The path of a file: URI (file:///a/b, file:/a/b, file://localhost/a/b, percent-encoded), or the text. */
static char *uri_path(const char *uri)
{
    const char *p = uri;
    if (strncmp(p, "file://localhost/", 17) == 0)
        p += 16;
    else if (strncmp(p, "file:///", 8) == 0)
        p += 7;
    else if (strncmp(p, "file:/", 6) == 0)
        p += 5;
    char *out = malloc(strlen(p) + 1), *q = out;
    if (!out)
        return NULL;
    for (; *p; p++) {
        unsigned int byte;
        if (p[0] == '%' && p[1] && p[2] && sscanf(p + 1, "%2x", &byte) == 1) {
            *q++ = (char)byte;
            p += 2;
        } else {
            *q++ = *p;
        }
    }
    size_t n = (size_t)(q - out);
    while (n > 1 && out[n - 1] == '/')
        n--;
    out[n] = '\0';
    return out;
}

/* The first line of <resources>/slavemodule.txt (the slave script's module name), or NULL. */
static char *slave_module_name(const char *resources)
{
    size_t size = strlen(resources) + 20;
    char *path = malloc(size), line[512];
    if (!path)
        return NULL;
    snprintf(path, size, "%s/slavemodule.txt", resources);
    FILE *f = fopen(path, "r");
    free(path);
    if (!f)
        return NULL;
    char *got = fgets(line, sizeof line, f);
    fclose(f);
    if (!got)
        return NULL;
    line[strcspn(line, "\r\n \t")] = '\0';
    return line[0] ? strdup(line) : NULL;
}

/* Import ``module`` with ``folder`` at the front of sys.path, which leaves it again afterwards. */
static PyObject *import_from(const char *folder, const char *module)
{
    PyObject *path = PySys_GetObject("path");            /* borrowed */
    PyObject *entry = PyUnicode_DecodeFSDefault(folder);
    if (!path || !PyList_Check(path) || !entry || PyList_Insert(path, 0, entry) != 0) {
        Py_XDECREF(entry);
        return NULL;
    }
    PyObject *result = PyImport_ImportModule(module);
    PyObject *type, *value, *tb;
    PyErr_Fetch(&type, &value, &tb);
    for (Py_ssize_t i = 0; i < PyList_GET_SIZE(path); i++) {
        PyObject *item = PyList_GET_ITEM(path, i);
        int same = item == entry || PyObject_RichCompareBool(item, entry, Py_EQ) == 1;
        PyErr_Clear();
        if (same) {
            PySequence_DelItem(path, i);
            break;
        }
    }
    PyErr_Clear();
    PyErr_Restore(type, value, tb);
    Py_DECREF(entry);
    return result;
}

static void free_instance(Instance *c)
{
    if (!c)
        return;
    Py_XDECREF(c->py);
    Py_XDECREF(c->log_queue);
    Py_XDECREF(c->strings);
    free(c->name);
    free(c);
}

EXPORT fmi2Component fmi2Instantiate(fmi2String instanceName, fmi2Type fmuType, fmi2String fmuGUID,
                                     fmi2String fmuResourceLocation, const fmi2CallbackFunctions *functions,
                                     fmi2Boolean visible, fmi2Boolean loggingOn)
{
    (void)fmuGUID;
    Instance *c = calloc(1, sizeof(Instance));
    if (!c)
        return NULL;
    c->name = strdup(instanceName ? instanceName : "");
    c->logger = functions ? functions->logger : NULL;
    c->env = functions ? functions->componentEnvironment : NULL;
    c->logging_on = loggingOn;
    if (fmuType != fmi2CoSimulation) {
        log_text(c, fmi2Error, "logStatusError", "fmi2Instantiate: this FMU supports Co-Simulation only");
        free_instance(c);
        return NULL;
    }
    if (!fmuResourceLocation) {
        log_text(c, fmi2Error, "logStatusError", "fmi2Instantiate: no resource location given");
        free_instance(c);
        return NULL;
    }
    const char *failure = ensure_python();
    if (failure) {
        char message[512];
        snprintf(message, sizeof message, "fmi2Instantiate: cannot start Python: %s", failure);
        log_text(c, fmi2Error, "logStatusError", message);
        free_instance(c);
        return NULL;
    }
    char *resources = uri_path(fmuResourceLocation);
    char *module_name = resources ? slave_module_name(resources) : NULL;
    if (!module_name) {
        char message[512];
        snprintf(message, sizeof message, "fmi2Instantiate: cannot read slavemodule.txt in the resources folder %s",
                 resources ? resources : fmuResourceLocation);
        log_text(c, fmi2Error, "logStatusError", message);
        free(resources);
        free_instance(c);
        return NULL;
    }
    PyGILState_STATE gil = PyGILState_Ensure();
    PyObject *module = import_from(resources, module_name);
    PyObject *py = NULL;
    if (module) {
        PyObject *factory = PyObject_GetAttrString(module, "fmi2_instance");
        if (factory) {
            py = PyObject_CallFunction(factory, "OssO", module, c->name, resources, visible ? Py_True : Py_False);
            Py_DECREF(factory);
        }
        Py_DECREF(module);
    }
    if (py) {
        c->py = py;
        c->log_queue = PyObject_GetAttrString(py, "log_queue");
        if (c->log_queue && !PyList_Check(c->log_queue))
            Py_CLEAR(c->log_queue);
        PyErr_Clear();
        forward_messages(c);
    } else {
        char what[600];
        snprintf(what, sizeof what, "fmi2Instantiate: the slave of module %s could not be created", module_name);
        exception_status(c, what);
    }
    PyGILState_Release(gil);
    free(resources);
    free(module_name);
    finalize_at_exit();
    if (!c->py) {
        free_instance(c);
        return NULL;
    }
    return c;
}

EXPORT void fmi2FreeInstance(fmi2Component component)
{
    Instance *c = (Instance *)component;
    if (!c)
        return;
    if (Py_IsInitialized()) {
        PyGILState_STATE gil = PyGILState_Ensure();
        free_instance(c);
        PyGILState_Release(gil);
    } else {
        free(c->name);
        free(c);
    }
}

EXPORT fmi2Status fmi2SetDebugLogging(fmi2Component component, fmi2Boolean loggingOn, size_t nCategories,
                                      const fmi2String categories[])
{
    (void)nCategories;
    (void)categories;
    Instance *c = (Instance *)component;
    if (!c)
        return fmi2Error;
    c->logging_on = loggingOn;
    return fmi2OK;
}

EXPORT fmi2Status fmi2SetupExperiment(fmi2Component component, fmi2Boolean toleranceDefined, fmi2Real tolerance,
                                      fmi2Real startTime, fmi2Boolean stopTimeDefined, fmi2Real stopTime)
{
    ENTER(c);
    PyObject *stop = stopTimeDefined ? PyFloat_FromDouble(stopTime) : Py_NewRef(Py_None);
    PyObject *tol = toleranceDefined ? PyFloat_FromDouble(tolerance) : Py_NewRef(Py_None);
    PyObject *result = stop && tol ? PyObject_CallMethod(c->py, "setup_experiment", "dOO", startTime, stop, tol)
                                   : NULL;
    Py_XDECREF(stop);
    Py_XDECREF(tol);
    c->last_successful_time = startTime;
    LEAVE(finish(c, result, "fmi2SetupExperiment"));
}

EXPORT fmi2Status fmi2EnterInitializationMode(fmi2Component component)
{
    ENTER(c);
    LEAVE(finish(c, PyObject_CallMethod(c->py, "enter_initialization_mode", NULL), "fmi2EnterInitializationMode"));
}

EXPORT fmi2Status fmi2ExitInitializationMode(fmi2Component component)
{
    ENTER(c);
    PyObject *result = PyObject_CallMethod(c->py, "exit_initialization_mode", NULL);
    int refused = result == Py_False;
    fmi2Status status = finish(c, result, "fmi2ExitInitializationMode");
    LEAVE(refused ? fmi2Error : status);
}

EXPORT fmi2Status fmi2Terminate(fmi2Component component)
{
    ENTER(c);
    fmi2Status status = finish(c, PyObject_CallMethod(c->py, "terminate", NULL), "fmi2Terminate");
    finalize_at_exit();
    LEAVE(status);
}

EXPORT fmi2Status fmi2Reset(fmi2Component component)
{
    ENTER(c);
    PyObject *result = PyObject_CallMethod(c->py, "reset", NULL);
    if (result) {
        Py_XSETREF(c->log_queue, PyObject_GetAttrString(c->py, "log_queue"));
        if (c->log_queue && !PyList_Check(c->log_queue))
            Py_CLEAR(c->log_queue);
        PyErr_Clear();
        c->refused = 0;
    }
    LEAVE(finish(c, result, "fmi2Reset"));
}

/* ---------------------------------------------------------------- values */
/* One C value -> a new Python object (NULL with an exception set). */
typedef PyObject *(*ToPython)(const void *values, size_t i);

static PyObject *real_item(const void *values, size_t i) { return PyFloat_FromDouble(((const fmi2Real *)values)[i]); }
static PyObject *integer_item(const void *values, size_t i) { return PyLong_FromLong(((const fmi2Integer *)values)[i]); }
static PyObject *boolean_item(const void *values, size_t i)
{
    return PyBool_FromLong(((const fmi2Boolean *)values)[i] != fmi2False);
}

/* A String: bytes that are not UTF-8 arrive as lone surrogates, which the slave refuses by name. */
static PyObject *string_item(const void *values, size_t i)
{
    const char *text = ((const fmi2String *)values)[i];
    if (!text)
        return Py_NewRef(Py_None);
    return PyUnicode_DecodeUTF8(text, (Py_ssize_t)strlen(text), "surrogateescape");
}

/* The slave's ``setter``(value references, values). */
static fmi2Status set_values(fmi2Component component, const char *setter, const char *what,
                             const fmi2ValueReference vr[], size_t nvr, const void *values, ToPython convert)
{
    ENTER(c);
    PyObject *refs = references(vr, nvr), *list = PyList_New((Py_ssize_t)nvr), *result = NULL;
    int ok = refs && list;
    for (size_t i = 0; ok && i < nvr; i++) {
        PyObject *item = convert(values, i);
        ok = item != NULL;
        if (ok)
            PyList_SET_ITEM(list, (Py_ssize_t)i, item);
    }
    if (ok)
        result = PyObject_CallMethod(c->py, setter, "OO", refs, list);
    Py_XDECREF(refs);
    Py_XDECREF(list);
    LEAVE(finish(c, result, what));
}

EXPORT fmi2Status fmi2SetReal(fmi2Component c, const fmi2ValueReference vr[], size_t nvr, const fmi2Real value[])
{
    return set_values(c, "set_real", "fmi2SetReal", vr, nvr, value, real_item);
}

EXPORT fmi2Status fmi2SetInteger(fmi2Component c, const fmi2ValueReference vr[], size_t nvr,
                                 const fmi2Integer value[])
{
    return set_values(c, "set_integer", "fmi2SetInteger", vr, nvr, value, integer_item);
}

EXPORT fmi2Status fmi2SetBoolean(fmi2Component c, const fmi2ValueReference vr[], size_t nvr,
                                 const fmi2Boolean value[])
{
    return set_values(c, "set_boolean", "fmi2SetBoolean", vr, nvr, value, boolean_item);
}

EXPORT fmi2Status fmi2SetString(fmi2Component c, const fmi2ValueReference vr[], size_t nvr, const fmi2String value[])
{
    return set_values(c, "set_string", "fmi2SetString", vr, nvr, value, string_item);
}

/* One Python object -> the C value ``values[i]``; -1 with an exception set when it is not one. */
typedef int (*FromPython)(PyObject *item, void *values, size_t i);

static int real_value(PyObject *item, void *values, size_t i)
{
    double x = PyFloat_AsDouble(item);
    ((fmi2Real *)values)[i] = x;
    return x == -1.0 && PyErr_Occurred() ? -1 : 0;
}

static int integer_value(PyObject *item, void *values, size_t i)
{
    long x = PyLong_AsLong(item);
    ((fmi2Integer *)values)[i] = (fmi2Integer)x;
    return x == -1 && PyErr_Occurred() ? -1 : 0;
}

static int boolean_value(PyObject *item, void *values, size_t i)
{
    int truth = PyObject_IsTrue(item);
    ((fmi2Boolean *)values)[i] = truth > 0 ? fmi2True : fmi2False;
    return truth < 0 ? -1 : 0;
}

/* A String: a pointer into the str object, valid while the result list is kept (Instance.strings). */
static int string_value(PyObject *item, void *values, size_t i)
{
    const char *text = PyUnicode_Check(item) ? PyUnicode_AsUTF8(item) : NULL;
    ((fmi2String *)values)[i] = text;
    if (text)
        return 0;
    if (!PyErr_Occurred())
        PyErr_SetString(PyExc_TypeError, "get_string returned a value that is not a str");
    return -1;
}

/* The slave's ``getter``(value references), a list of nvr values, into ``values``. */
static fmi2Status get_values(fmi2Component component, const char *getter, const char *what,
                             const fmi2ValueReference vr[], size_t nvr, void *values, FromPython convert)
{
    ENTER(c);
    PyObject *refs = references(vr, nvr), *list = NULL;
    if (refs)
        list = PyObject_CallMethod(c->py, getter, "O", refs);
    Py_XDECREF(refs);
    if (list && (!PyList_Check(list) || PyList_GET_SIZE(list) != (Py_ssize_t)nvr)) {
        PyErr_Format(PyExc_TypeError, "%s returned %R, not a list of %zu values", getter, list, nvr);
        Py_CLEAR(list);
    }
    for (size_t i = 0; list && i < nvr; i++)
        if (convert(PyList_GET_ITEM(list, (Py_ssize_t)i), values, i) < 0)
            Py_CLEAR(list);
    if (list && convert == string_value)   /* the texts live as long as the list: until the next fmi2GetString */
        Py_XSETREF(c->strings, Py_NewRef(list));
    LEAVE(finish(c, list, what));
}

EXPORT fmi2Status fmi2GetReal(fmi2Component c, const fmi2ValueReference vr[], size_t nvr, fmi2Real value[])
{
    return get_values(c, "get_real", "fmi2GetReal", vr, nvr, value, real_value);
}

EXPORT fmi2Status fmi2GetInteger(fmi2Component c, const fmi2ValueReference vr[], size_t nvr, fmi2Integer value[])
{
    return get_values(c, "get_integer", "fmi2GetInteger", vr, nvr, value, integer_value);
}

EXPORT fmi2Status fmi2GetBoolean(fmi2Component c, const fmi2ValueReference vr[], size_t nvr, fmi2Boolean value[])
{
    return get_values(c, "get_boolean", "fmi2GetBoolean", vr, nvr, value, boolean_value);
}

EXPORT fmi2Status fmi2GetString(fmi2Component c, const fmi2ValueReference vr[], size_t nvr, fmi2String value[])
{
    return get_values(c, "get_string", "fmi2GetString", vr, nvr, value, string_value);
}

/* ---------------------------------------------------------------- stepping and status */
EXPORT fmi2Status fmi2DoStep(fmi2Component component, fmi2Real currentCommunicationPoint,
                             fmi2Real communicationStepSize, fmi2Boolean noSetFMUStatePriorToCurrentPoint)
{
    (void)noSetFMUStatePriorToCurrentPoint;
    ENTER(c);
    PyObject *result = PyObject_CallMethod(c->py, "do_step", "dd", currentCommunicationPoint,
                                           communicationStepSize);
    int taken = result ? PyObject_IsTrue(result) : 0;
    if (taken < 0)
        Py_CLEAR(result);
    fmi2Status status = finish(c, result, "fmi2DoStep");
    if (status == fmi2OK && !taken)
        status = fmi2Discard;
    c->refused = status != fmi2OK;
    c->last_successful_time = currentCommunicationPoint + (status == fmi2OK ? communicationStepSize : 0.0);
    LEAVE(status);
}

EXPORT fmi2Status fmi2CancelStep(fmi2Component component)
{
    ENTER(c);
    log_text(c, fmi2Error, "logStatusError", "fmi2CancelStep: steps are not asynchronous, nothing to cancel");
    LEAVE(fmi2Error);
}

EXPORT fmi2Status fmi2GetStatus(fmi2Component component, const fmi2StatusKind s, fmi2Status *value)
{
    (void)component;
    (void)s;
    (void)value;
    return fmi2Discard;
}

EXPORT fmi2Status fmi2GetRealStatus(fmi2Component component, const fmi2StatusKind s, fmi2Real *value)
{
    Instance *c = (Instance *)component;
    if (!c || s != fmi2LastSuccessfulTime)
        return fmi2Discard;
    *value = c->last_successful_time;
    return fmi2OK;
}

EXPORT fmi2Status fmi2GetIntegerStatus(fmi2Component component, const fmi2StatusKind s, fmi2Integer *value)
{
    (void)component;
    (void)s;
    (void)value;
    return fmi2Discard;
}

EXPORT fmi2Status fmi2GetBooleanStatus(fmi2Component component, const fmi2StatusKind s, fmi2Boolean *value)
{
    if (s != fmi2Terminated)
        return fmi2Discard;
    ENTER(c);
    PyObject *result = c->refused ? Py_NewRef(Py_True) : PyObject_CallMethod(c->py, "cannot_continue", NULL);
    int truth = result ? PyObject_IsTrue(result) : 0;
    *value = truth > 0 ? fmi2True : fmi2False;
    if (truth < 0)
        Py_CLEAR(result);
    LEAVE(finish(c, result, "fmi2GetBooleanStatus"));
}

EXPORT fmi2Status fmi2GetStringStatus(fmi2Component component, const fmi2StatusKind s, fmi2String *value)
{
    (void)component;
    (void)s;
    (void)value;
    return fmi2Discard;
}

/* ---------------------------------------------------------------- FMU state */
EXPORT fmi2Status fmi2GetFMUstate(fmi2Component component, fmi2FMUstate *FMUstate)
{
    ENTER(c);
    PyObject *state = PyObject_CallMethod(c->py, "get_fmu_state", NULL);
    if (state == Py_None) {
        Py_DECREF(state);
        PyErr_SetString(PyExc_RuntimeError, "the slave made no state (see its message)");
        state = NULL;
    }
    State *box = *FMUstate ? (State *)*FMUstate : calloc(1, sizeof(State));
    if (state && box) {
        Py_XSETREF(box->state, Py_NewRef(state));
        Py_CLEAR(box->bytes);
        *FMUstate = box;
    } else if (box && !*FMUstate) {
        free(box);
    }
    LEAVE(finish(c, state, "fmi2GetFMUstate"));
}

EXPORT fmi2Status fmi2SetFMUstate(fmi2Component component, fmi2FMUstate FMUstate)
{
    ENTER(c);
    State *box = (State *)FMUstate;
    PyObject *result = NULL;
    if (!box || !box->state)
        PyErr_SetString(PyExc_ValueError, "no FMU state given");
    else
        result = PyObject_CallMethod(c->py, "set_fmu_state", "O", box->state);
    if (result)
        c->refused = 0;
    LEAVE(finish(c, result, "fmi2SetFMUstate"));
}

EXPORT fmi2Status fmi2FreeFMUstate(fmi2Component component, fmi2FMUstate *FMUstate)
{
    ENTER(c);
    (void)c;
    State *box = FMUstate ? (State *)*FMUstate : NULL;
    if (box) {
        Py_XDECREF(box->state);
        Py_XDECREF(box->bytes);
        free(box);
        *FMUstate = NULL;
    }
    LEAVE(fmi2OK);
}

/* The state's bytes (made once per state object), borrowed; NULL with an exception set. */
static PyObject *state_bytes(Instance *c, State *box)
{
    if (!box || !box->state) {
        PyErr_SetString(PyExc_ValueError, "no FMU state given");
        return NULL;
    }
    if (!box->bytes) {
        PyObject *bytes = PyObject_CallMethod(c->py, "state_to_bytes", "O", box->state);
        if (bytes && !PyBytes_Check(bytes)) {
            PyErr_SetString(PyExc_TypeError, "the state serializer did not return bytes");
            Py_CLEAR(bytes);
        }
        box->bytes = bytes;
    }
    return box->bytes;
}

EXPORT fmi2Status fmi2SerializedFMUstateSize(fmi2Component component, fmi2FMUstate FMUstate, size_t *size)
{
    ENTER(c);
    PyObject *bytes = state_bytes(c, (State *)FMUstate);
    if (bytes)
        *size = (size_t)PyBytes_GET_SIZE(bytes);
    LEAVE(finish(c, Py_XNewRef(bytes), "fmi2SerializedFMUstateSize"));
}

EXPORT fmi2Status fmi2SerializeFMUstate(fmi2Component component, fmi2FMUstate FMUstate, fmi2Byte serializedState[],
                                        size_t size)
{
    ENTER(c);
    PyObject *bytes = state_bytes(c, (State *)FMUstate);
    if (bytes && (size_t)PyBytes_GET_SIZE(bytes) > size) {
        PyErr_Format(PyExc_ValueError, "the buffer of %zu bytes is too small for the state's %zd bytes", size,
                     PyBytes_GET_SIZE(bytes));
        bytes = NULL;
    }
    if (bytes)
        memcpy(serializedState, PyBytes_AS_STRING(bytes), (size_t)PyBytes_GET_SIZE(bytes));
    LEAVE(finish(c, Py_XNewRef(bytes), "fmi2SerializeFMUstate"));
}

EXPORT fmi2Status fmi2DeSerializeFMUstate(fmi2Component component, const fmi2Byte serializedState[], size_t size,
                                          fmi2FMUstate *FMUstate)
{
    ENTER(c);
    PyObject *state = PyObject_CallMethod(c->py, "state_from_bytes", "y#", serializedState, (Py_ssize_t)size);
    State *box = state ? calloc(1, sizeof(State)) : NULL;
    if (box) {
        box->state = Py_NewRef(state);
        *FMUstate = box;
    }
    LEAVE(finish(c, state, "fmi2DeSerializeFMUstate"));
}

/* ---------------------------------------------------------------- not supported */
static fmi2Status unsupported(fmi2Component component, const char *what)
{
    Instance *c = (Instance *)component;
    if (!c)
        return fmi2Error;
    char message[200];
    snprintf(message, sizeof message, "%s is not supported by this FMU", what);
    log_text(c, fmi2Error, "logStatusError", message);
    return fmi2Error;
}

EXPORT fmi2Status fmi2GetDirectionalDerivative(fmi2Component c, const fmi2ValueReference vUnknown_ref[],
                                               size_t nUnknown, const fmi2ValueReference vKnown_ref[], size_t nKnown,
                                               const fmi2Real dvKnown[], fmi2Real dvUnknown[])
{
    (void)vUnknown_ref, (void)nUnknown, (void)vKnown_ref, (void)nKnown, (void)dvKnown, (void)dvUnknown;
    return unsupported(c, "fmi2GetDirectionalDerivative");
}

EXPORT fmi2Status fmi2SetRealInputDerivatives(fmi2Component c, const fmi2ValueReference vr[], size_t nvr,
                                              const fmi2Integer order[], const fmi2Real value[])
{
    (void)vr, (void)nvr, (void)order, (void)value;
    return unsupported(c, "fmi2SetRealInputDerivatives");
}

EXPORT fmi2Status fmi2GetRealOutputDerivatives(fmi2Component c, const fmi2ValueReference vr[], size_t nvr,
                                               const fmi2Integer order[], fmi2Real value[])
{
    (void)vr, (void)nvr, (void)order, (void)value;
    return unsupported(c, "fmi2GetRealOutputDerivatives");
}
