"""The result model: cases, verdicts, evidence, the seed's tables, figures, the conditions
they were measured in, the run record.

It sits below the experiments, which produce it, and beside the store and the reports,
which keep and show it; none of them needs the experiments to read a stored run.
"""

from cpulab.results.case import Case
from cpulab.results.conditions import CaseConditions, RunConditions
from cpulab.results.evidence import Evidence
from cpulab.results.plot_spec import PlotSpec
from cpulab.results.record import OWN_SEED_ROW, SCHEMA, RunRecord
from cpulab.results.tables import EvidenceTable, SeedTable
from cpulab.results.verdict import VERDICTS, Verdict, VerdictKind

__all__ = ["OWN_SEED_ROW", "SCHEMA", "VERDICTS", "Case", "CaseConditions", "Evidence",
           "EvidenceTable", "PlotSpec", "RunConditions", "RunRecord", "SeedTable", "Verdict",
           "VerdictKind"]
