"""MF 5.2 lateral, aligning and combined-slip kernels (tire/pacejka_combined.py).

The reference below is a separate numpy transcription of the MF 5.2 equations (Pacejka, Tyre and Vehicle
Dynamics, 2006, §4.3.2, in the MF 5.2 form) written from the published equations, vectorised over a grid,
and never calling the package's kernels. It reads the coefficients by name. The guard constants of the
kernels (not part of the published equations) are repeated here by value.
"""
from __future__ import annotations

import json
import os
import subprocess
import sys

import numpy as np
import pytest

from fmu_vehicle.paths import REPO_DIR, resource_path
from fmu_vehicle.tire import pacejka, pacejka_combined as pc, tir

CAR_TIR = resource_path("tires", "pacejka2006_205_60R15.tir")
EPS_X, EPS_Y, EPS_LMU = 0.1, 0.1, 1e-6


def coefficients(path):
    params = tir.read_tir(path)
    return {name: getattr(params, name) for name in tir.coefficient_names()}


def to_array(c):
    p = np.zeros(tir.N_PARAMS)
    for name, _section, _default, _rule, index in tir.COEFFICIENTS:
        p[index] = c[name]
    return p


def reference(c, fz, kappa, alpha, gamma, mu):
    """(Fx0, Fy0, Mz0, Fx, Fy, Mz) of MF 5.2 on broadcast numpy arrays (Fz > 0)."""
    sgn = np.sign
    fz0 = c["FNOMIN"] * c["LFZO"]
    dfz = (fz - fz0) / fz0
    lmux = c["LMUX"] * mu
    lmuy = c["LMUY"] * mu
    ta = np.tan(alpha)
    ca = np.cos(alpha)

    def guard(x):
        return np.where(x < 0.0, x - EPS_Y, x + EPS_Y)

    def sine(b, cc, d, e, x):
        return d * np.sin(cc * np.arctan(b * x - e * (b * x - np.arctan(b * x))))

    def cosine(b, cc, e, x):
        return np.cos(cc * np.arctan(b * x - e * (b * x - np.arctan(b * x))))

    # Fx0 (4.E9-4.E18) with camber through PDX3
    gx = gamma * c["LGAX"]
    kx = kappa + (c["PHX1"] + c["PHX2"] * dfz) * c["LHX"]
    cx = c["PCX1"] * c["LCX"]
    dx = np.maximum(0.0, (c["PDX1"] + c["PDX2"] * dfz) * (1 - c["PDX3"] * gx ** 2) * lmux) * fz
    ex = np.minimum(1.0, (c["PEX1"] + c["PEX2"] * dfz + c["PEX3"] * dfz ** 2) * (1 - c["PEX4"] * sgn(kx)) * c["LEX"])
    kxk = fz * (c["PKX1"] + c["PKX2"] * dfz) * np.exp(c["PKX3"] * dfz) * c["LKX"]
    bx = kxk / (cx * dx + EPS_X)
    fx0 = sine(bx, cx, dx, ex, kx) + fz * (c["PVX1"] + c["PVX2"] * dfz) * c["LVX"] * lmux

    # Fy0 (4.E19-4.E30, MF 5.2 camber terms)
    gy = gamma * c["LGAY"]
    shy = (c["PHY1"] + c["PHY2"] * dfz) * c["LHY"] + c["PHY3"] * gy
    ay = ta + shy
    cy = c["PCY1"] * c["LCY"]
    muy = (c["PDY1"] + c["PDY2"] * dfz) * (1 - c["PDY3"] * gy ** 2) * lmuy
    dy = muy * fz
    ey = np.minimum(1.0, (c["PEY1"] + c["PEY2"] * dfz) * (1 - (c["PEY3"] + c["PEY4"] * gy) * sgn(ay)) * c["LEY"])
    kya = (c["PKY1"] * fz0 * np.sin(2 * np.arctan(fz / (c["PKY2"] * fz0))) * (1 - c["PKY3"] * np.abs(gy))
           * c["LKY"])
    by = kya / guard(cy * dy)
    svy = fz * ((c["PVY1"] + c["PVY2"] * dfz) * c["LVY"] + (c["PVY3"] + c["PVY4"] * dfz) * gy) * lmuy
    fy0 = sine(by, cy, dy, ey, ay) + svy

    # Mz0 (4.E31-4.E49)
    gz = gamma * c["LGAZ"]
    lmuy_d = np.maximum(lmuy, EPS_LMU)
    sht = c["QHZ1"] + c["QHZ2"] * dfz + (c["QHZ3"] + c["QHZ4"] * dfz) * gz
    at = ta + sht
    ar = ta + shy + svy / guard(kya)
    bt = ((c["QBZ1"] + c["QBZ2"] * dfz + c["QBZ3"] * dfz ** 2) * (1 + c["QBZ4"] * gz + c["QBZ5"] * np.abs(gz))
          * c["LKY"] / lmuy_d)
    ct = c["QCZ1"]
    dt = (fz * (c["QDZ1"] + c["QDZ2"] * dfz) * (1 + c["QDZ3"] * gz + c["QDZ4"] * gz ** 2)
          * (c["UNLOADED_RADIUS"] / fz0) * c["LTR"])
    et = np.minimum(1.0, (c["QEZ1"] + c["QEZ2"] * dfz + c["QEZ3"] * dfz ** 2)
                    * (1 + (c["QEZ4"] + c["QEZ5"] * gz) * (2 / np.pi) * np.arctan(bt * ct * at)))
    br = c["QBZ9"] * c["LKY"] / lmuy_d + c["QBZ10"] * by * cy
    dr = fz * ((c["QDZ6"] + c["QDZ7"] * dfz) * c["LRES"] + (c["QDZ8"] + c["QDZ9"] * dfz) * gz) * c["UNLOADED_RADIUS"] * lmuy
    mz0 = -dt * cosine(bt, ct, et, at) * ca * fy0 + dr * np.cos(np.arctan(br * ar)) * ca

    # combined Fx (4.E50-4.E57)
    shxa = c["RHX1"]
    bxa = c["RBX1"] * np.cos(np.arctan(c["RBX2"] * kappa)) * c["LXAL"]
    exa = np.minimum(1.0, c["REX1"] + c["REX2"] * dfz)
    fx = cosine(bxa, c["RCX1"], exa, ta + shxa) / cosine(bxa, c["RCX1"], exa, shxa) * fx0

    # combined Fy (4.E58-4.E67)
    shyk = c["RHY1"] + c["RHY2"] * dfz
    byk = c["RBY1"] * np.cos(np.arctan(c["RBY2"] * (ta - c["RBY3"]))) * c["LYKA"]
    eyk = np.minimum(1.0, c["REY1"] + c["REY2"] * dfz)
    dvyk = muy * fz * (c["RVY1"] + c["RVY2"] * dfz + c["RVY3"] * gy) * np.cos(np.arctan(c["RVY4"] * ta))
    svyk = dvyk * np.sin(c["RVY5"] * np.arctan(c["RVY6"] * kappa)) * c["LVYKA"]
    fy = cosine(byk, c["RCY1"], eyk, kappa + shyk) / cosine(byk, c["RCY1"], eyk, shyk) * fy0 + svyk

    # combined Mz (4.E71-4.E78)
    ratio_k = kxk / guard(kya) * kappa
    at_eq = np.sqrt(at ** 2 + ratio_k ** 2) * sgn(at)
    ar_eq = np.sqrt(ar ** 2 + ratio_k ** 2) * sgn(ar)
    s = c["UNLOADED_RADIUS"] * (c["SSZ1"] + c["SSZ2"] * fy / fz0 + (c["SSZ3"] + c["SSZ4"] * dfz) * gz) * c["LS"]
    mz = (-dt * cosine(bt, ct, et, at_eq) * ca * (fy - svyk) + dr * np.cos(np.arctan(br * ar_eq)) * ca
          + s * fx)
    return fx0, fy0, mz0, fx, fy, mz


def perturbed(c):
    """The car tire with non-unit scaling factors and the camber/shift terms the file leaves at 0."""
    c = dict(c)
    c.update(LFZO=1.1, LMUX=0.9, LMUY=0.8, LKY=1.1, LCY=0.95, LEY=1.05, LHY=0.9, LVY=1.2, LGAX=1.2, LGAY=0.9,
             LGAZ=1.3, LTR=0.9, LRES=1.2, LXAL=0.9, LYKA=1.1, LVYKA=0.8, LS=0.7, PDX3=2.0, PHY3=0.01,
             QBZ4=0.1, RHY2=0.002, QEZ3=0.05)
    return c


def grid_values(p, kappa, alpha, gamma, fz, mu):
    out = np.empty((6,) + kappa.shape)
    for i in np.ndindex(kappa.shape):
        k, a, g, f, m = kappa[i], alpha[i], gamma[i], fz[i], mu[i]
        out[0][i] = pc.mf_fx0_camber(p, f, k, g, m)
        out[1][i] = pc.mf_fy0(p, f, a, g, m)
        out[2][i] = pc.mf_mz0(p, f, a, g, m)
        out[3][i], out[4][i], out[5][i] = pc.mf_combined(p, f, k, a, g, m)
    return out


@pytest.mark.parametrize("variant", ["file", "perturbed"])
def test_kernels_match_independent_reference_on_grid(variant):
    c = coefficients(CAR_TIR)
    if variant == "perturbed":
        c = perturbed(c)
    p = to_array(c)
    fz0 = c["FNOMIN"]
    kappa, alpha, load, gamma, mu = np.meshgrid(np.linspace(-1, 1, 9), np.linspace(-0.3, 0.3, 9),
                                                np.array([0.3, 0.7, 1.0, 1.5, 2.0]),
                                                np.linspace(-0.1, 0.1, 5), np.array([1.0, 0.55]), indexing="ij")
    fz = load * fz0
    got = grid_values(p, kappa, alpha, gamma, fz, mu)
    want = reference(c, fz, kappa, alpha, gamma, mu)
    names = ("Fx0", "Fy0", "Mz0", "Fx", "Fy", "Mz")
    for name, g, w, scale in zip(names, got, want, (fz, fz, fz, fz, fz, fz * c["UNLOADED_RADIUS"])):
        assert np.all(np.isfinite(g)), name
        err = np.abs(g - w) / np.maximum(np.abs(w), 1e-3 * scale)   # relative; floor at 1e-3 Fz for zeros
        assert err.max() <= 1e-9, (name, float(err.max()))
    # the grid exercises the interesting regions: sliding, both signs of each force, a real reduction
    assert got[4].min() < -0.7 * fz0 and got[4].max() > 0.7 * fz0
    assert got[3].min() < -0.7 * fz0 and got[3].max() > 0.7 * fz0


def test_fx0_camber_is_mf_fx0_without_camber_and_defaults_keep_longitudinal_files():
    for name in ("pacejka_light_truck.tir", "dai2022_sedan.tir", "pacejka2006_205_60R15.tir"):
        p = tir.read_tir(resource_path("tires", name)).to_array()
        for fz in (500.0, 4000.0, 9000.0):
            for kappa in (-1.0, -0.1, 0.0, 0.07, 0.8):
                assert pc.mf_fx0_camber(p, fz, kappa, 0.0, 0.8) == pacejka.mf_fx0(p, fz, kappa, 0.8)
    p = tir.read_tir(resource_path("tires", "pacejka_light_truck.tir")).to_array()   # longitudinal data only
    for alpha in (-0.2, 0.0, 0.1):
        fx, fy, mz = pc.mf_combined(p, 6000.0, 0.05, alpha, 0.05, 1.0)
        assert fx == pacejka.mf_fx0(p, 6000.0, 0.05, 1.0)   # no RBX1/RCX1: Gx_alpha = 1, no PDX3
        assert fy == 0.0 and mz == 0.0                       # no lateral or aligning coefficients
        assert pc.mf_fy0(p, 6000.0, alpha, 0.05, 1.0) == 0.0


def symmetric(c):
    """The car tire with every shift and asymmetry at zero."""
    c = dict(c)
    for key in ("PHY1", "PHY2", "PVY1", "PVY2", "PEY3", "QHZ1", "QHZ2", "QDZ6", "QDZ7", "RHY1", "RHY2",
                "RVY1", "RVY2", "RHX1", "PHX1", "PHX2", "PEX4", "SSZ1", "SSZ2", "QEZ4", "RBY3"):
        c[key] = 0.0
    return c


def test_fy_and_mz_odd_in_alpha_without_camber_and_shifts():
    p = to_array(symmetric(coefficients(CAR_TIR)))
    for fz in (1500.0, 4000.0, 8000.0):
        for alpha in (0.01, 0.05, 0.12, 0.3):
            assert pc.mf_fy0(p, fz, -alpha, 0.0, 1.0) == pytest.approx(-pc.mf_fy0(p, fz, alpha, 0.0, 1.0), rel=1e-12)
            assert pc.mf_mz0(p, fz, -alpha, 0.0, 1.0) == pytest.approx(-pc.mf_mz0(p, fz, alpha, 0.0, 1.0), rel=1e-12)
            for kappa in (-0.3, 0.0, 0.1):
                fxp, fyp, _ = pc.mf_combined(p, fz, kappa, alpha, 0.0, 1.0)
                fxm, fym, _ = pc.mf_combined(p, fz, kappa, -alpha, 0.0, 1.0)
                assert fym == pytest.approx(-fyp, rel=1e-12) and fxm == pytest.approx(fxp, rel=1e-12)


def test_fy_peak_near_mu_fz_and_scales_with_road_friction():
    params = tir.read_tir(CAR_TIR)
    p = params.to_array()
    alphas = np.linspace(0.0, 0.5, 1001)
    for fz in (2000.0, 4000.0, 7000.0):
        dfz = (fz - params.FNOMIN) / params.FNOMIN
        mu_y = abs(params.PDY1 + params.PDY2 * dfz)
        for mu in (1.0, 0.4):
            peak = max(abs(pc.mf_fy0(p, fz, a, 0.0, mu)) for a in alphas)
            assert 0.9 * mu * mu_y * fz < peak < 1.1 * mu * mu_y * fz, (fz, mu, peak)
    # the shipped tire: lateral peak friction about 1 at the nominal load, reached at 0.15-0.3 rad
    fy = np.array([pc.mf_fy0(p, 4000.0, a, 0.0, 1.0) for a in alphas])
    assert 0.9 < -fy.min() / 4000.0 < 1.05
    assert 0.15 < alphas[np.argmin(fy)] < 0.3


@pytest.mark.parametrize("variant", ["symmetric", "file"])
def test_combined_slip_reduces_both_forces(variant):
    """Symmetric variant (no kappa-induced side force SVyk): at every combined point. The file's SVyk adds
    up to ~0.04 Fz to |Fy| while braking at small slip, so there only from |kappa| >= 0.2."""
    params = tir.read_tir(CAR_TIR)
    p = params.to_array() if variant == "file" else to_array(symmetric(coefficients(CAR_TIR)))
    kappas = (-0.5, -0.1, -0.05, 0.05, 0.1, 0.5) if variant == "symmetric" else (-0.5, -0.2, 0.2, 0.5)
    for fz in (2000.0, 4000.0, 7000.0):
        dfz = (fz - params.FNOMIN) / params.FNOMIN
        peak = max(params.PDX1 + params.PDX2 * dfz, abs(params.PDY1 + params.PDY2 * dfz)) * fz
        for kappa in kappas:
            for alpha in (-0.2, -0.08, -0.05, 0.05, 0.08, 0.2):
                fx, fy, _ = pc.mf_combined(p, fz, kappa, alpha, 0.0, 1.0)
                fx0 = pc.mf_fx0_camber(p, fz, kappa, 0.0, 1.0)
                fy0 = pc.mf_fy0(p, fz, alpha, 0.0, 1.0)
                assert abs(fx) < abs(fx0) and abs(fy) < abs(fy0), (fz, kappa, alpha)
                assert np.sign(fx) == np.sign(fx0) and np.sign(fy) == np.sign(fy0)
                assert np.hypot(fx, fy) < 1.05 * peak   # inside the friction limit


def test_iso_sign_conventions():
    p = tir.read_tir(CAR_TIR).to_array()
    for alpha in (0.02, 0.05, 0.1):
        fy = pc.mf_fy0(p, 4000.0, alpha, 0.0, 1.0)
        mz = pc.mf_mz0(p, 4000.0, alpha, 0.0, 1.0)
        assert fy < 0.0 and mz > 0.0          # slides left -> pushed right; moment turns it toward travel
        assert pc.mf_fy0(p, 4000.0, -alpha, 0.0, 1.0) > 0.0 and pc.mf_mz0(p, 4000.0, -alpha, 0.0, 1.0) < 0.0
    # braking while sliding left: Fx < 0, Fy < 0
    fx, fy, _ = pc.mf_combined(p, 4000.0, -0.1, 0.05, 0.0, 1.0)
    assert fx < 0.0 and fy < 0.0
    # camber thrust: a wheel whose top leans right (gamma > 0) is pushed right, toward its lean (PVY3 < 0: -y)
    assert pc.mf_fy0(p, 4000.0, 0.0, 0.05, 1.0) < pc.mf_fy0(p, 4000.0, 0.0, 0.0, 1.0)


def test_positive_inclination_is_the_top_of_the_wheel_leaning_right():
    """gamma = asin(a·n) of the contact (docs/tire.md §9-§10): a wheel turned by +0.05 rad about +x (forward)
    has its spin axis a = (0, cos, sin) and the top of its wheel plane moved to -y (right); the contact gives
    gamma = +0.05 rad, and docs/tire.md says positive is the top leaning right."""
    from fmu_vehicle.tire.contact import CONTACT_OUT_N, OUT_GAMMA, tire_contact_3d
    p = tir.read_tir(resource_path("tires", "dai2022_sedan.tir")).to_array()
    angle = 0.05
    axis = np.array([0.0, np.cos(angle), np.sin(angle)])
    top = np.array([0.0, 0.0, 1.0]) - axis[2] * axis          # the upward direction in the wheel plane
    assert top[1] < 0.0                                      # leans to the right (-y)
    out = np.zeros(CONTACT_OUT_N)
    tire_contact_3d(p, 1.0, np.array([0.0, 0.0, 0.46]), np.array([10.0, 0.0, 0.0]), 10.0 / 0.46 * axis, axis,
                    0.0, 0.0, 0.0, 1.0, 0.0, 0.0, out)
    assert out[OUT_GAMMA] == pytest.approx(angle, rel=1e-12)
    section = (REPO_DIR / "docs" / "tire.md").read_text(encoding="utf-8").split("## 9.")[1].split("## 10.")[0]
    assert "positive when the top of the wheel leans to the right" in " ".join(section.split())


def test_readme_cornering_stiffness_is_the_codes():
    """resources/tires/README.md states the cornering stiffness of dai2022_sedan.tir at FNOMIN; it is the
    kernel's Ky = PKY1 Fz0 sin(2 atan(Fz/(PKY2 Fz0))) at Fz = FNOMIN, camber 0 (-6.90e4 N/rad)."""
    import re
    params = tir.read_tir(resource_path("tires", "dai2022_sedan.tir"))
    p = params.to_array()
    ky = pc.cornering_stiffness(p, params.FNOMIN, 0.0)
    assert ky == pytest.approx(params.PKY1 * params.FNOMIN * np.sin(2.0 * np.arctan(1.0 / params.PKY2)), rel=1e-12)
    text = " ".join(resource_path("tires", "README.md").read_text(encoding="utf-8").split())
    stated = re.findall(r"(-?[0-9.]+)e4 N/rad per tire", text)
    assert stated, "the README states no cornering stiffness 'X.XXe4 N/rad per tire'"
    for value in stated:
        assert float(value) * 1e4 == pytest.approx(ky, abs=0.005e4), (value, ky)


def test_no_load_and_no_friction_are_finite():
    p = tir.read_tir(CAR_TIR).to_array()
    assert pc.mf_combined(p, 0.0, 0.1, 0.1, 0.0, 1.0) == (0.0, 0.0, 0.0)
    assert pc.mf_fy0(p, -5.0, 0.1, 0.0, 1.0) == 0.0 and pc.mf_mz0(p, -5.0, 0.1, 0.0, 1.0) == 0.0
    fx, fy, mz = pc.mf_combined(p, 4000.0, 0.1, 0.1, 0.05, 0.0)
    assert np.isfinite([fx, fy, mz]).all() and abs(fx) < 1e-6 * 4000 and abs(fy) < 1e-6 * 4000


SCRIPT = r'''
import json
from fmu_vehicle.paths import resource_path
from fmu_vehicle.tire import pacejka_combined as pc
from fmu_vehicle.tire.tir import read_tir
p = read_tir(resource_path("tires", "pacejka2006_205_60R15.tir")).to_array()
values = []
for fz in (-1.0, 1200.0, 4000.0, 8000.0):
    for kappa, alpha, gamma in ((0.0, 0.0, 0.0), (-0.6, 0.1, -0.05), (0.08, -0.25, 0.1)):
        values.append(pc.mf_fy0(p, fz, alpha, gamma, 0.7))
        values.append(pc.mf_mz0(p, fz, alpha, gamma, 0.7))
        values.extend(pc.mf_combined(p, fz, kappa, alpha, gamma, 0.7))
print(json.dumps(values))
'''


def test_same_numbers_without_numba():
    env = dict(os.environ, NUMBA_DISABLE_JIT="1")
    nojit = json.loads(subprocess.run([sys.executable, "-c", SCRIPT], env=env, cwd=REPO_DIR, check=True,
                                      capture_output=True, text=True).stdout)
    env.pop("NUMBA_DISABLE_JIT")
    jit = json.loads(subprocess.run([sys.executable, "-c", SCRIPT], env=env, cwd=REPO_DIR, check=True,
                                    capture_output=True, text=True).stdout)
    np.testing.assert_allclose(nojit, jit, rtol=1e-12, atol=1e-9)
