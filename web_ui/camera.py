"""Optional camera: builds the vision pipeline when one is asked for (or the demo recording).

Imported lazily so the dashboard works with no OpenCV/torch and no camera: then it is a manual
scorekeeper. A pipeline object offers ``latest_jpeg()``, ``camera_state()``, ``on_event(callback)``,
and optionally ``start()``/``stop()``.
"""

from __future__ import annotations

import logging

log = logging.getLogger(__name__)


def make_pipeline(source: str | None, layout: str | None, demo: bool):
    """(pipeline or None, list of camera sources for the new-match form)."""
    if not source and not demo:
        return None, []
    try:
        from vision import pipeline as vp
    except Exception as e:  # no vision stack installed / not built yet
        log.warning("camera disabled: the vision pipeline cannot be loaded (%s)", e)
        return None, []
    try:
        if demo and not source and hasattr(vp, "demo_pipeline"):
            p = vp.demo_pipeline(layout=layout)
            return p, ["demo recording"]
        factory = getattr(vp, "create_pipeline", None) or getattr(vp, "Pipeline", None)
        if factory is None:
            log.warning("camera disabled: vision.pipeline has no create_pipeline/Pipeline")
            return None, []
        p = factory(source=source, layout=layout)
        return p, [str(source)]
    except Exception as e:
        log.warning("camera disabled: the pipeline could not start (%s)", e)
        return None, []
