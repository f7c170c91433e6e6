"""The tire interface's layouts: the parameter array's width and model slot, the contact's output array.

Every tire model fills these, and every caller outside a model's own modules reads them through
``tire.models`` (which re-exports them; they live here, below the models, so that a model's contact kernel can
write the output layout without importing the registry that imports it).

Parameters (float64[N_PARAMS], ``models.params``): a model's coefficients in its own layout (mf52: ``tir.P_*``)
in slots 0 .. P_MODEL - 1, its model id (``models.MODELS``) in slot P_MODEL.

Contact output (float64[CONTACT_OUT_N], written by ``models.contact``): the OUT_* slots below; global frame
ISO 8855 (x forward, y left, z up), n the road normal, t the longitudinal and l = n × t the lateral unit vector
in the road plane, a the spin axis.

See docs/tire.md §11.
"""
from __future__ import annotations

P_MODEL = 128         # tire model id (models.MODELS; 0 = mf52), written by models.params
N_PARAMS = 129

OUT_FORCE = 0         # [0:3] total force on the wheel Fx t + Fz n [N], global frame
OUT_POINT = 3         # [3:6] application point P [m], global frame
OUT_MY = 6            # rolling resistance moment about the spin axis [N m]
OUT_FX = 7            # longitudinal force along t [N]
OUT_FZ = 8            # normal force along n [N], >= 0
OUT_DEFLECTION = 9    # δ = R0 - d [m] (negative when airborne)
OUT_DKAPPA = 10       # dκ'/dt [1/s]
OUT_KAPPA_SS = 11     # steady-state (kinematic) slip -Vsx / max(|Vx|, KAPPA_SPEED_EPS) [-]
OUT_VX = 12           # longitudinal speed of the wheel centre Vx = t·ċ [m/s]
OUT_VSX = 13          # slip velocity Vsx = Vx - Ω Re [m/s]
OUT_RE = 14           # effective rolling radius [m]
OUT_SIGMA = 15        # relaxation length σc in use [m]
OUT_NORMAL = 16       # [16:19] road normal n [-]
OUT_TANGENT = 19      # [19:22] longitudinal unit vector t [-]
# combined slip only (the longitudinal-only mf52 contact ``contact.tire_contact`` sets them to 0):
OUT_FY = 22           # lateral force along l = n × t [N]
OUT_MZ = 23           # aligning moment about n [N m]
OUT_DALPHA = 24       # d(tan α')/dt [1/s]
OUT_TAN_ALPHA = 25    # tan α' in use [-]: the slip angle α' (+: contact slides to +l) is its atan
OUT_TAN_ALPHA_SS = 26  # tan of the kinematic slip angle, Vcy / max(|Vx|, KAPPA_SPEED_EPS) [-]
# (the two angles are outputs only, so the contact leaves their atan to whoever reports them)
OUT_GAMMA = 27        # inclination angle γ = asin(a·n) [rad] (ISO: rotation of the wheel about +t)
OUT_VY = 28           # lateral speed of the wheel centre Vcy = l·ċ [m/s]
OUT_LATERAL = 29      # [29:32] lateral unit vector l = n × t [-]
OUT_SIGMA_Y = 32      # lateral relaxation length σα in use [m]
OUT_MOMENT = 33       # [33:36] moment on the wheel My a + Mz n⊥ [N m], global frame
CONTACT_OUT_N = 36
