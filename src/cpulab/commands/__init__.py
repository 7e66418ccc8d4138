"""The subcommands of `cpulab`, one module each with its `cmd_*` function and an
`add_parser(sub)` that declares its flags (bundle.py holds the pair export and import,
which share the bundle format). Helpers shared by several commands have modules of their
own: common.py (consoles, usage errors, argument types, opening the database),
experiment_names.py (an experiment by name or path), refs.py (runs by id, experiment,
machine or bundle), record.py (one run in the terminal), regression.py
(--fail-on-regression) and progress.py (run's progress bar).

`cpulab.cli` builds the parser from these modules and is the one place where their
errors become a line and an exit status."""
