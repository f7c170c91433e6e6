"""Developer tools, not part of the model: the speed benchmark (``fmu-vehicle bench``: :mod:`.bench`, against
another commit :mod:`.bench_baseline`, pass by pass :mod:`.pass_timing`, its child processes :mod:`.children`
and the bare FMU :mod:`.bare_slave`) and the reproduction of the paper's manoeuvres (``fmu-vehicle
reproduce-paper``: :mod:`.paper`)."""
