"""Road profiles along x: height h(x) [m], slope dh/dx [-], normal and friction mu [-], plus their njit kernel.

    road = load_road("bumpy")                 # or FlatRoad(), SlopeRoad(16.5), SpeedBumpRoad(...),
                                              #    ProfileRoad(x, h), CsvRoad(...), Iso8608Road(...)
    road.height(x), road.slope(x), road.normal(x), road.friction(x)       # NumPy, vectorised
    arrays = road.to_arrays()                 # RoadArrays(kind, params, x0, dx, h_table, s_table)
    road_eval(arrays, x, out)                 # njit: out[0] = h, out[1] = dh/dx, out[2] = mu

How the roads are defined and evaluated: docs/road.md.
"""
from .arrays import KIND_FLAT, KIND_SLOPE, KIND_TABLE, RoadArrays, plane_arrays, set_plane
from .base import Road
from .csv_road import CsvRoad, ProfileRoad
from .iso8608 import Iso8608Road, iso8608_psd
from .kernel import road_eval, road_eval_points, road_normal
from .loader import load_road
from .profiles import FlatRoad, SlopeRoad, SpeedBumpRoad

__all__ = [
    "Road", "FlatRoad", "SlopeRoad", "SpeedBumpRoad", "ProfileRoad", "CsvRoad", "Iso8608Road", "iso8608_psd",
    "RoadArrays", "plane_arrays", "set_plane", "KIND_FLAT", "KIND_SLOPE", "KIND_TABLE", "road_eval",
    "road_eval_points", "road_normal", "load_road",
]
