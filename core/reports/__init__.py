"""Reports behind the dashboards and `python -m core metrics`, built from db.analytics' counts.

db/ returns rows and contingency counts; every figure is computed here with `core.metrics`.
`summary` is the one agreement-and-fairness summary of a contingency table (Fairness page and
the metrics command); the views assemble what each dashboard page shows.
"""
from core.reports import later  # noqa: F401  (pages: reports.later.pending)
from core.reports.agreement import agreement_view, anchored_view, edit_view, judge_view  # noqa: F401
from core.reports.costs import costs_view  # noqa: F401
from core.reports.dashboards import agreement_page, costs_page, fairness_page  # noqa: F401
from core.reports.fairness import fairness_view  # noqa: F401
from core.reports.judges import judge_agreement_view  # noqa: F401
from core.reports.pairs import criteria, criterion_titles, reference_label, title_of, titled  # noqa: F401
from core.reports.table import summary  # noqa: F401
from db.analytics import REFERENCE_CHOICES, Scope  # noqa: F401  (what the pages pass)
