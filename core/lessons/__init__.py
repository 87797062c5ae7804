"""Lesson review (issue 17, seed 001): FairMark's second workflow. A teacher uploads a course's
lesson texts with their specification; a judge reviews each one before it is published, with
the same runs, call log, cache and human sign-off as the reflections.

    spec        the lesson's specification and its YAML front matter
    ingest      lesson files in (Markdown, TXT, DOCX, ZIP) -> one transaction
    sections    Markdown sections and sentences with their places in the text
    heuristics  Stage 1, free: length, reading grade and its drift, structure, objectives
    rubric      the weighted OSCQR rubric with vetoes
    entropy     token entropy per sentence: the judge's own answers and the lesson text
    roles       the lesson roles (judge, fixer, fact check) and their prompts
    judge       one judge's verdict and the cascade over the judge panel
    refine      targeted refinement: rewrite only the failing section, re-judge, at most 2 rounds
    tiers       ready / sampled / needs review, the queue order and the 10 % sample
    review      one lesson through all of the above, stored in one transaction
    runs        lesson runs in the background (resume, cancel) on the shared runs table
    signoff     accept or reject a fix, approve; every change audited
    export      an approved lesson as Markdown or DOCX with its review record
    costs       calls, tokens and dollars per lesson and course, against the seed's figures
    agreement   judge-expert and judge-teacher agreement on lesson verdicts
    demo        the synthetic demo course with planted problems and expert verdicts

The offline baseline (no LLM) runs Stage 1 only and is labelled core.offline.LABEL.
"""
