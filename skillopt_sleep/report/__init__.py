"""Night reports: the same summary rendered as Markdown, JSON and a self-contained HTML page.

The summary (``skillopt_sleep.report.document.NightSummary``, built by
``skillopt_sleep.night.summary.build_summary``) is stored with the night, so a report can be
re-rendered at any time.
"""

from skillopt_sleep.report.render import render_html, render_md, write_reports
from skillopt_sleep.report.words import headline, skill_sentence

__all__ = ["headline", "render_html", "render_md", "skill_sentence", "write_reports"]
