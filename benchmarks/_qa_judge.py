"""The LLM judges of ``qa.py``: the prompts the peers publish, and a verdict read from whatever the judge wrote.

The prompts are quoted as published, so that a number measured here can be set beside theirs:

- LoCoMo: mem0's LLM judge (``evaluation/metrics/llm_judge.py`` in mem0ai/mem0, Apache-2.0; the prompt of the mem0
  paper, arXiv 2504.19413, also used by Zep, Memobase and MemOS in their LoCoMo comparisons): CORRECT or WRONG,
  asked for as JSON ``{"label": ...}``, generous about length and date formats. Category 5 is not judged (as there).
- LongMemEval: ``get_anscheck_prompt`` of its ``src/evaluation/evaluate_qa.py`` (xiaowu0162/LongMemEval, MIT): one
  prompt per question type, a rubric for the preference questions, and the abstention prompt for ``_abs`` questions
  (the answer is "this cannot be answered"); "yes" or "no".

A judge's answer is read without trusting its format (``parse_verdict``): JSON with a label (``{"label": "CORRECT"}``,
``{"verdict": "yes"}``, ``{"correct": true}``), in a code fence or after a reasoning block, or a bare word. An answer
that says both or neither is *unparsed*: counted apart and scored as wrong, never guessed.
"""

from __future__ import annotations

import json
import re
from typing import Any

__all__ = ["judge_messages", "locomo_prompt", "longmemeval_prompt", "parse_verdict"]

# mem0ai/mem0, evaluation/metrics/llm_judge.py, ACCURACY_PROMPT (quoted; its curly quotes kept as published).
LOCOMO_JUDGE = """
Your task is to label an answer to a question as \u2019CORRECT\u2019 or \u2019WRONG\u2019. You will be given the following data:
    (1) a question (posed by one user to another user), 
    (2) a \u2019gold\u2019 (ground truth) answer, 
    (3) a generated answer
which you will score as CORRECT/WRONG.

The point of the question is to ask about something one user should know about the other user based on their prior conversations.
The gold answer will usually be a concise and short answer that includes the referenced topic, for example:
Question: Do you remember what I got the last time I went to Hawaii?
Gold answer: A shell necklace
The generated answer might be much longer, but you should be generous with your grading - as long as it touches on the same topic as the gold answer, it should be counted as CORRECT. 

For time related questions, the gold answer will be a specific date, month, year, etc. The generated answer might be much longer or use relative time references (like "last Tuesday" or "next month"), but you should be generous with your grading - as long as it refers to the same date or time period as the gold answer, it should be counted as CORRECT. Even if the format differs (e.g., "May 7th" vs "7 May"), consider it CORRECT if it's the same date.

Now it's time for the real question:
Question: {question}
Gold answer: {gold_answer}
Generated answer: {generated_answer}

First, provide a short (one sentence) explanation of your reasoning, then finish with CORRECT or WRONG. 
Do NOT include both CORRECT and WRONG in your response, or it will break the evaluation script.

Just return the label CORRECT or WRONG in a json format with the key as "label".
"""  # noqa: E501, W291  (quoted as published: its long lines and trailing spaces are part of the prompt)

# xiaowu0162/LongMemEval, src/evaluation/evaluate_qa.py, get_anscheck_prompt (quoted).
_ASK = (
    "I will give you a question, a correct answer, and a response from a model. Please answer yes if the response "
    "contains the correct answer. Otherwise, answer no. If the response is equivalent to the correct answer or "
    "contains all the intermediate steps to get the correct answer, you should also answer yes. If the response only "
    "contains a subset of the information required by the answer, answer no."
)
_TAIL = (
    "\n\nQuestion: {}\n\nCorrect Answer: {}\n\nModel Response: {}\n\nIs the model response correct? Answer yes or no "
    "only."
)
_TEMPORAL = (
    " In addition, do not penalize off-by-one errors for the number of days. If the question asks for the number of "
    "days/weeks/months, etc., and the model makes off-by-one errors (e.g., predicting 19 days when the answer is 18), "
    "the model's response is still correct. "
)
_UPDATE = (
    "I will give you a question, a correct answer, and a response from a model. Please answer yes if the response "
    "contains the correct answer. Otherwise, answer no. If the response contains some previous information along with "
    "an updated answer, the response should be considered as correct as long as the updated answer is the required "
    "answer."
)
_PREFERENCE = (
    "I will give you a question, a rubric for desired personalized response, and a response from a model. Please "
    "answer yes if the response satisfies the desired response. Otherwise, answer no. The model does not need to "
    "reflect all the points in the rubric. The response is correct as long as it recalls and utilizes the user's "
    "personal information correctly.\n\nQuestion: {}\n\nRubric: {}\n\nModel Response: {}\n\nIs the model response "
    "correct? Answer yes or no only."
)
_ABSTENTION = (
    "I will give you an unanswerable question, an explanation, and a response from a model. Please answer yes if the "
    "model correctly identifies the question as unanswerable. The model could say that the information is incomplete, "
    "or some other information is given but the asked information is not.\n\nQuestion: {}\n\nExplanation: {}\n\n"
    "Model Response: {}\n\nDoes the model correctly identify the question as unanswerable? Answer yes or no only."
)
LONGMEMEVAL_JUDGE = {
    "single-session-user": _ASK + " " + _TAIL,
    "single-session-assistant": _ASK + " " + _TAIL,
    "multi-session": _ASK + " " + _TAIL,
    "temporal-reasoning": _ASK + _TEMPORAL + _TAIL,
    "knowledge-update": _UPDATE + _TAIL,
    "single-session-preference": _PREFERENCE,
}


def locomo_prompt(question: str, gold: str, answer: str) -> str:
    return LOCOMO_JUDGE.format(question=question, gold_answer=gold, generated_answer=answer)


def longmemeval_prompt(question_type: str, question: str, gold: str, answer: str, *, abstention: bool) -> str:
    """The prompt for the question's type (the abstention prompt for ``_abs`` questions, whatever their type)."""
    if abstention:
        return _ABSTENTION.format(question, gold, answer)
    template = LONGMEMEVAL_JUDGE.get(question_type)
    if template is None:
        msg = f"LongMemEval has no judge prompt for question type {question_type!r}"
        raise ValueError(msg)
    return template.format(question, gold, answer)


def judge_messages(prompt: str) -> list[dict[str, str]]:
    """As both peers ask: the whole prompt as one user message, no system message."""
    return [{"role": "user", "content": prompt}]


_THINK = re.compile(r"<think>.*?</think>", re.DOTALL | re.IGNORECASE)
_FENCE = re.compile(r"```[a-zA-Z]*\s*\n?(.*?)```", re.DOTALL)
_YES = {"correct", "yes"}  # as words in prose ("true" and "false" say too little there)
_NO = {"wrong", "incorrect", "no"}
_LABEL_YES, _LABEL_NO = _YES | {"true"}, _NO | {"false"}  # as a JSON label's value
_WORD = re.compile(r"[a-z]+")
_LABEL_KEYS = ("label", "verdict", "answer", "judgement", "judgment", "result", "correct", "is_correct")


def parse_verdict(text: str) -> bool | None:
    """True (correct), False (wrong), or None when the judge's answer says neither or both."""
    cleaned = _THINK.sub("", text or "").strip()
    for candidate in _json_candidates(cleaned):
        found = _label_of(candidate)
        if found is not None:
            return found
    words = set(_WORD.findall(cleaned.lower()))
    said_yes, said_no = bool(words & _YES), bool(words & _NO)
    if said_yes != said_no:
        return said_yes
    # Both words (LongMemEval's script would read "yes" anywhere as correct): a short answer that starts with one
    # ("Yes, no doubt") is read by its first word; anything else is unparsed rather than guessed.
    first = _WORD.search(cleaned.lower())
    if said_yes and first is not None and first.group() in _YES | _NO and len(cleaned) <= 40:
        return first.group() in _YES
    return None


def _json_candidates(text: str) -> list[Any]:
    attempts = [text, *(m.group(1).strip() for m in _FENCE.finditer(text))]
    start, end = text.find("{"), text.rfind("}")
    if 0 <= start < end:
        attempts.append(text[start : end + 1])
    found = []
    for attempt in attempts:
        try:
            found.append(json.loads(attempt))
        except ValueError:
            continue
    return found


def _label_of(value: Any) -> bool | None:
    if isinstance(value, bool):
        return value
    if isinstance(value, str):
        word = value.strip().strip(".!'\"\u2019").lower()
        return True if word in _LABEL_YES else False if word in _LABEL_NO else None
    if isinstance(value, dict):
        lowered = {str(k).lower(): v for k, v in value.items()}
        for key in _LABEL_KEYS:
            if key in lowered and (found := _label_of(lowered[key])) is not None:
                return found
    return None
