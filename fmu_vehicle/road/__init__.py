"""Road surfaces: height h [m], slopes dh/dx and dh/dy [-], normal and friction mu [-] at (x, y), plus their
njit kernels.

    road = load_road("bumpy")                 # or FlatRoad(), SlopeRoad(16.5), SpeedBumpRoad(...),
                                              #    ProfileRoad(x, h), CsvRoad(...), Iso8608Road(...),
                                              #    TwoTrackRoad(left, right), Iso8608TwoTrackRoad(...),
                                              #    SplitFrictionRoad(road, mu_left, mu_right), OpenCrgRoad(path)
    road.height(x, y), road.slope(x, y), road.slope_y(x, y), road.normal(x, y), road.friction(x, y)
                                              # NumPy, vectorised; y = 0 (the reference track) if left out
    arrays = road.to_arrays()                 # RoadArrays: one record type for every road
    road_eval_xy(arrays, x, y, out)           # njit: out = (h, dh/dx, mu, dh/dy)
    road_eval(arrays, x, out)                 # njit: out[0:3] = (h, dh/dx, mu) on the reference track y = 0

How the roads are defined and evaluated: docs/road.md.
"""
from .arrays import KIND_FLAT, KIND_SLOPE, KIND_TABLE, RoadArrays, plane_arrays, set_plane
from .base import GridRoad, Road
from .csv_road import CsvRoad, ProfileRoad
from .friction import SplitFrictionRoad
from .iso8608 import Iso8608Road, Iso8608TwoTrackRoad, isotropic_coherence, iso8608_psd
from .kernel import road_eval, road_eval_points, road_eval_xy, road_eval_xy_points, road_normal, road_normal_xy
from .loader import load_road
from .profiles import FlatRoad, SlopeRoad, SpeedBumpRoad
from .two_track import TwoTrackRoad

__all__ = [
    "Road", "GridRoad", "FlatRoad", "SlopeRoad", "SpeedBumpRoad", "ProfileRoad", "CsvRoad", "Iso8608Road",
    "Iso8608TwoTrackRoad", "TwoTrackRoad", "SplitFrictionRoad", "iso8608_psd", "isotropic_coherence",
    "RoadArrays", "plane_arrays", "set_plane", "KIND_FLAT", "KIND_SLOPE", "KIND_TABLE", "road_eval",
    "road_eval_points", "road_eval_xy", "road_eval_xy_points", "road_normal", "road_normal_xy", "load_road",
]
