"""ADAS validation: scenario catalogues as data, KPIs scored like the test protocols, sweeps on dask."""
