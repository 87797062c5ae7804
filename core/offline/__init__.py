"""The offline baseline: FairMark's agent roles answered from text features, with no LLM.

`provider.OfflineLLM` implements the LLM protocol, so the pipeline, the call log, the cache
and the checks run exactly as with a model; `heuristics` holds the features and templates.
Everything it produces is labelled LABEL wherever it appears (drafts.is_offline = 1,
provider "offline"); a page shows it with t(LABEL).
"""
from core.language.interface import N_

LABEL = N_("offline baseline — no LLM")
MODEL = "offline"
