"""Consolidation: an LLM turns messages into dated facts, reconciles them with what is known, and reflects.

Pure planning (prompts, answer checks, plans of store operations) in ``extraction``, ``reconciliation`` and
``reflection``; I/O in the LLM clients and the two workers (asyncio task and thread) over a store protocol.
"""

from memadapt_core.consolidation.llm_base import OPERATION_HEADER
from memadapt_core.consolidation.llm_client import AsyncLLMClient, LLMClient
from memadapt_core.consolidation.parsing import MalformedAnswerError, extract_json
from memadapt_core.consolidation.planning.extraction import Extraction, ExtractionResult, Fact, build_extraction
from memadapt_core.consolidation.planning.plan import (
    ConsolidationPlan,
    Invalidation,
    NewRecord,
    Supersession,
    fact_id,
    insight_id,
    normalise_text,
)
from memadapt_core.consolidation.planning.reconciliation import (
    Decision,
    Reconciliation,
    build_reconciliation,
    plan_facts,
    skip_plan,
)
from memadapt_core.consolidation.planning.reflection import (
    Reflection,
    ReflectionTracker,
    assemble_reflection,
    build_reflection,
)
from memadapt_core.consolidation.report import ConsolidationReport
from memadapt_core.consolidation.store import ConsolidationStore, SyncConsolidationStore
from memadapt_core.consolidation.sync_worker import SyncConsolidationWorker
from memadapt_core.consolidation.worker import ConsolidationWorker
from memadapt_core.consolidation.worker_base import BudgetExhaustedError, InstructionsHook, WorkerOptions

__all__ = [
    "OPERATION_HEADER",
    "AsyncLLMClient",
    "BudgetExhaustedError",
    "ConsolidationPlan",
    "ConsolidationReport",
    "ConsolidationStore",
    "ConsolidationWorker",
    "Decision",
    "Extraction",
    "ExtractionResult",
    "Fact",
    "InstructionsHook",
    "Invalidation",
    "LLMClient",
    "MalformedAnswerError",
    "NewRecord",
    "Reconciliation",
    "Reflection",
    "ReflectionTracker",
    "Supersession",
    "SyncConsolidationStore",
    "SyncConsolidationWorker",
    "WorkerOptions",
    "assemble_reflection",
    "build_extraction",
    "build_reconciliation",
    "build_reflection",
    "extract_json",
    "fact_id",
    "insight_id",
    "normalise_text",
    "plan_facts",
    "skip_plan",
]
