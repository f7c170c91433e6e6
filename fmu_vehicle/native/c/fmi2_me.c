/* FMI 2.0 Model Exchange of a native vehicle FMU: included at the end of fmi2_native.c (it uses that file's
 * instance, variable table and helpers), so the same library is a Co-Simulation and a Model Exchange FMU with one
 * modelIdentifier. No formula lives here: the host integrates the state vector y itself and asks for
 *
 *   fv_evaluate at (t_model, y, the inputs): dy/dt, the switching functions (the event indicators), the outputs,
 *               and whether the engine origin is due for a rebase   (native.step.evaluate_cfunc)
 *
 * evaluated once per change of time, state or input (c->me_fresh). Events (docs/native.md, Model Exchange):
 *   - state events: the event indicators are the system's switching functions, the values whose change of sign
 *     RK4E locates (vehicle.events: road slope breaks, tire deflection, the clipped vertical force); at such an
 *     event nothing changes in the model (its derivative is only piecewise smooth there): the host restarts its
 *     method;
 *   - step events: fmi2CompletedIntegratorStep asks for event mode when the derivative at the step's state said
 *     that the coordinate partition degrades (status 1) or the chassis is more than REBASE_DISTANCE from the
 *     engine origin; fmi2NewDiscreteStates then does what fmi2DoStep does between steps: fv_repartition (new
 *     independent coordinates at y) and fv_prepare (the external load levers, the origin rebase), and says
 *     valuesOfContinuousStatesChanged after a new partition (which may have chosen other coordinates for the
 *     slots of y) or when y changed (a rebase).
 * The steering rack follows the steering input at every instant (the ramp data.steer = [t, target, 0]: a
 * constant travel), where the Co-Simulation step ramps it over the communication step.
 */

enum { ME_EVENT, ME_CONTINUOUS };

typedef struct {              /* fmi2FunctionTypes.h of the standard */
    fmi2Boolean newDiscreteStatesNeeded, terminateSimulation, nominalsOfContinuousStatesChanged,
        valuesOfContinuousStatesChanged, nextEventTimeDefined;
    fmi2Real nextEventTime;
} fmi2EventInfo;

/* the rack's ramp (data.steer in the blob of the instance's variant: t0 [s], s0 [m], rate [m/s], gain) held at
 * the steering input's target from the model time on; nothing if the chosen vehicle does not steer (a kind's
 * vehicles need not all steer: the offset is the variant's) */
static void me_hold_rack(Comp *c) {
    if (c->var->steer_offset < 0) return;
    double *steer = blob_double(c, c->var->steer_offset);
    steer[0] = c->t_model;
    steer[1] = rack_target(c);
    steer[2] = 0.0;
}

/* the evaluation's workspace (the ranges var->me of the instance's variant: the variants' blobs differ) into
 * the copy (save) or back from it */
static void me_workspace(Comp *c, int save) {
    unsigned char *blob;
    fv_instance_blob(c->instance, &blob);
    size_t at = 0;
    for (int i = 0; i < c->var->n_me; i++) {
        const fv_range *r = &c->var->me[i];
        if (save) memcpy(c->me_snap + at, blob + r->offset, (size_t)r->bytes);
        else memcpy(blob + r->offset, c->me_snap + at, (size_t)r->bytes);
        at += (size_t)r->bytes;
    }
    c->me_snapped |= save;
}

/* evaluate at (t, y, inputs) unless done since the last change, from the workspace of the last accepted state
 * (its warm starts: a derivative does not depend on the trial states the host tried before; a Newton solve
 * started from a far trial state could end on another branch of the dependent coordinates); fmi2OK, or
 * fmi2Discard naming the failure */
static fmi2Status me_evaluate(Comp *c, const char *fn) {
    if (!c->me_fresh) {
        if (c->me_snapped) me_workspace(c, 0);
        me_hold_rack(c);
        int64_t due = 0;
        c->me_status = fv_evaluate(c->model, c->data, c->t_model, c->y, c->row, c->me_ydot, c->var->switch_params,
                                   c->var->n_switch, c->me_g, &due);
        c->me_due = due;
        c->me_fresh = 1;
    }
    if (c->me_status < 0)
        return fail(c, fmi2Discard, "%s: t = %g s: the vehicle model failed at this state (status %lld) %s", fn, c->t,
                    (long long)c->me_status, fv_last_error());
    return fmi2OK;
}

/* fmi2OK if c is a Model Exchange instance in one of the modes of `modes` (bits: 1 initialization, 2 event,
 * 4 continuous time), else fmi2Error naming fn */
static fmi2Status me_check(Comp *c, const char *fn, int modes) {
    if (!c) return fmi2Error;
    if (!c->me)
        return fail(c, fmi2Error, "%s: the instance is Co-Simulation (instantiate it as fmi2ModelExchange)", fn);
    int mode = c->state == S_INIT ? 1 : c->state == S_STEPPING ? (c->me_mode == ME_EVENT ? 2 : 4) : 0;
    if (!(mode & modes))
        return fail(c, fmi2Error, "%s: not allowed %s", fn, c->state == S_FAILED ? "after a failure"
                    : c->state == S_TERMINATED ? "after fmi2Terminate" : c->state == S_INSTANTIATED
                    ? "before initialization" : mode == 1 ? "in initialization mode" : mode == 2 ? "in event mode"
                    : "in continuous-time mode");
    return fmi2OK;
}

/* in initialization mode the state is the start the exit will compute (the equilibrium at x0, moving at v0) from
 * the values set so far (use_choices: the instance of the chosen model and road, as fmi2GetReal there) */
static fmi2Status me_start(Comp *c, const char *fn) {
    if (c->state != S_INIT) return fmi2OK;
    c->me_fresh = c->me_snapped = 0;
    if (use_choices(c, fn) != fmi2OK) return fmi2Error;
    int64_t st = initial_outputs(c);
    if (st < 0)
        return fail(c, fmi2Error, "%s: initial state at x0 = %g m, v0 = %g m/s: the model failed with status %lld %s",
                    fn, c->x0, c->v0, (long long)st, fv_last_error());
    return fmi2OK;
}

/* fmi2GetReal of a Model Exchange variable (value references FV_N_VARS + k: y[k], FV_N_VARS + FV_N_STATES + k:
 * dy/dt[k]); 0 if vr is none. A Co-Simulation instance gives dy/dt at its last communication point where its
 * integrator keeps it (RK4 and RK4E: the next step's first stage, work[0]; in initialization fv_final's), else
 * NaN: it never evaluates the model for it, which would move the warm starts of its next step. */
static int me_real(Comp *c, fmi2ValueReference vr, double *value) {
    if (vr < FV_N_VARS || vr >= FV_N_VARS + 2 * FV_N_STATES) return 0;
    size_t k = vr - FV_N_VARS;
    if (k < FV_N_STATES) { *value = c->y[k]; return 1; }
    k -= FV_N_STATES;
    if (c->me && c->state == S_STEPPING) {
        *value = me_evaluate(c, "fmi2GetReal") == fmi2OK ? c->me_ydot[k] : NAN;
        return 1;
    }
    int first_stage = c->state == S_INIT || (c->state == S_STEPPING && (c->integrator == FV_ITEM_RK4
                                                                          || c->integrator == FV_ITEM_RK4E));
    *value = first_stage ? c->work[k] : NAN;
    return 1;
}

/* before fmi2GetReal: a Model Exchange instance's outputs at (t, y, inputs); nothing for Co-Simulation */
static fmi2Status me_outputs(Comp *c) {
    if (!c->me || c->state != S_STEPPING) return fmi2OK;
    return me_evaluate(c, "fmi2GetReal");
}

FMI_API fmi2Status fmi2SetTime(fmi2Component comp, fmi2Real time) {
    Comp *c = (Comp *)comp;
    if (me_check(c, "fmi2SetTime", 2 | 4) != fmi2OK) return fmi2Error;
    if (!isfinite(time)) return fail(c, fmi2Error, "fmi2SetTime: time %g is not finite", time);
    double t0 = c->t - c->t_model;           /* the FMU's start time: the model's time counts from 0 */
    c->t = time;
    c->t_model = time - t0;
    c->me_fresh = 0;
    return fmi2OK;
}

/* the checks of an array call: the mode (me_check), n values at p where the FMU has `expected` (p may be NULL
 * only for none), and in initialization mode the start computed (me_start) */
static fmi2Status me_array(Comp *c, const char *fn, int modes, const void *p, size_t n, size_t expected) {
    if (me_check(c, fn, modes) != fmi2OK) return fmi2Error;
    if (n != expected || (n && !p))
        return fail(c, fmi2Error, "%s: %zu values%s, this FMU has %zu", fn, n, n && !p ? " at a null pointer" : "",
                    expected);
    return me_start(c, fn);
}

FMI_API fmi2Status fmi2SetContinuousStates(fmi2Component comp, const fmi2Real x[], size_t nx) {
    Comp *c = (Comp *)comp;
    if (me_array(c, "fmi2SetContinuousStates", 2 | 4, x, nx, FV_N_STATES) != fmi2OK) return fmi2Error;
    for (size_t i = 0; i < nx; i++)
        if (!isfinite(x[i])) return fail(c, fmi2Error, "fmi2SetContinuousStates: x[%zu] = %g is not finite", i, x[i]);
    memcpy(c->y, x, sizeof c->y);
    c->me_fresh = 0;
    return fmi2OK;
}

FMI_API fmi2Status fmi2GetContinuousStates(fmi2Component comp, fmi2Real x[], size_t nx) {
    Comp *c = (Comp *)comp;
    if (me_array(c, "fmi2GetContinuousStates", 1 | 2 | 4, x, nx, FV_N_STATES) != fmi2OK) return fmi2Error;
    memcpy(x, c->y, sizeof c->y);
    return fmi2OK;
}

FMI_API fmi2Status fmi2GetNominalsOfContinuousStates(fmi2Component comp, fmi2Real x_nominal[], size_t nx) {
    Comp *c = (Comp *)comp;
    if (me_check(c, "fmi2GetNominalsOfContinuousStates", 1 | 2 | 4) != fmi2OK) return fmi2Error;
    if (nx != FV_N_STATES || !x_nominal)
        return fail(c, fmi2Error, "fmi2GetNominalsOfContinuousStates: %zu values%s, this FMU has %d", nx,
                    x_nominal ? "" : " at a null pointer", FV_N_STATES);
    memcpy(x_nominal, FV_NOMINALS, sizeof(double) * FV_N_STATES);
    return fmi2OK;
}

FMI_API fmi2Status fmi2GetDerivatives(fmi2Component comp, fmi2Real derivatives[], size_t nx) {
    Comp *c = (Comp *)comp;
    if (me_array(c, "fmi2GetDerivatives", 1 | 2 | 4, derivatives, nx, FV_N_STATES) != fmi2OK) return fmi2Error;
    if (c->state == S_INIT) { memcpy(derivatives, c->work, sizeof(double) * FV_N_STATES); return fmi2OK; }
    fmi2Status st = me_evaluate(c, "fmi2GetDerivatives");
    if (st != fmi2OK) return st;
    memcpy(derivatives, c->me_ydot, sizeof c->me_ydot);
    return fmi2OK;
}

FMI_API fmi2Status fmi2GetEventIndicators(fmi2Component comp, fmi2Real eventIndicators[], size_t ni) {
    Comp *c = (Comp *)comp;
    if (me_array(c, "fmi2GetEventIndicators", 1 | 2 | 4, eventIndicators, ni, FV_N_EVENT_INDICATORS) != fmi2OK)
        return fmi2Error;
    fmi2Status st = me_evaluate(c, "fmi2GetEventIndicators");
    if (st != fmi2OK) return st;
    memcpy(eventIndicators, c->me_g, sizeof(double) * ni);
    return fmi2OK;
}

FMI_API fmi2Status fmi2CompletedIntegratorStep(fmi2Component comp, fmi2Boolean noSetFMUStatePriorToCurrentPoint,
                                               fmi2Boolean *enterEventMode, fmi2Boolean *terminateSimulation) {
    (void)noSetFMUStatePriorToCurrentPoint;
    Comp *c = (Comp *)comp;
    if (me_check(c, "fmi2CompletedIntegratorStep", 4) != fmi2OK) return fmi2Error;
    if (!enterEventMode || !terminateSimulation)
        return fail(c, fmi2Error, "fmi2CompletedIntegratorStep: a null pointer");
    *terminateSimulation = fmi2False;
    fmi2Status st = me_evaluate(c, "fmi2CompletedIntegratorStep");
    if (st != fmi2OK) { *terminateSimulation = fmi2True; return st; }
    *enterEventMode = c->me_status == 1 || c->me_due ? fmi2True : fmi2False;
    me_workspace(c, 1);             /* the accepted state's: the next evaluations start from it */
    return fmi2OK;
}

FMI_API fmi2Status fmi2EnterEventMode(fmi2Component comp) {
    Comp *c = (Comp *)comp;
    if (me_check(c, "fmi2EnterEventMode", 2 | 4) != fmi2OK) return fmi2Error;
    c->me_mode = ME_EVENT;
    return fmi2OK;
}

/* What fmi2DoStep does between its steps, at the event's state: a new coordinate partition if the derivative
 * asked for one (fv_repartition), then fv_prepare (the external load levers, the origin rebase; the rack is held
 * at its input, me_hold_rack). valuesOfContinuousStatesChanged after a new partition or if y changed. */
FMI_API fmi2Status fmi2NewDiscreteStates(fmi2Component comp, fmi2EventInfo *info) {
    Comp *c = (Comp *)comp;
    if (me_check(c, "fmi2NewDiscreteStates", 2) != fmi2OK) return fmi2Error;
    if (!info) return fail(c, fmi2Error, "fmi2NewDiscreteStates: a null pointer");
    memset(info, 0, sizeof *info);
    fmi2Status st = me_evaluate(c, "fmi2NewDiscreteStates");
    if (st != fmi2OK) { info->terminateSimulation = fmi2True; return st; }
    double before[FV_N_STATES];
    memcpy(before, c->y, sizeof before);
    if (c->me_status == 1) {
        int64_t r = fv_repartition(c->model, c->data, c->y);
        if (r != 0) {
            c->state = S_FAILED;
            info->terminateSimulation = fmi2True;
            return fail(c, fmi2Discard, "fmi2NewDiscreteStates: t = %g s: no new coordinate partition (status %lld) %s",
                        c->t, (long long)r, fv_last_error());
        }
        logf_(c, fmi2OK, "logEvents", "t = %.17g s: a new coordinate partition", c->t);
    }
    if (fv_prepare(c->model, c->data, c->t_model, 1.0, rack_target(c), c->y, c->row) < 0) {
        c->state = S_FAILED;
        info->terminateSimulation = fmi2True;
        return fail(c, fmi2Discard, "fmi2NewDiscreteStates: t = %g s: %s", c->t, fv_last_error());
    }
    c->me_fresh = c->me_snapped = 0;        /* the new partition, origin and levers stay */
    /* a new partition says so even where it chose the same coordinates (y rewritten to the same values): what
     * a slot holds may have changed, so the host restarts its method */
    info->valuesOfContinuousStatesChanged = c->me_status == 1 || memcmp(before, c->y, sizeof before) != 0;
    if (c->me_due) logf_(c, fmi2OK, "logEvents", "t = %.17g s: the engine origin rebased", c->t);
    st = me_evaluate(c, "fmi2NewDiscreteStates");
    if (st == fmi2OK) me_workspace(c, 1);
    return st;
}

FMI_API fmi2Status fmi2EnterContinuousTimeMode(fmi2Component comp) {
    Comp *c = (Comp *)comp;
    if (me_check(c, "fmi2EnterContinuousTimeMode", 2) != fmi2OK) return fmi2Error;
    c->me_mode = ME_CONTINUOUS;
    return fmi2OK;
}
