"""What each phase of a change computes for its gate or step: the review payloads (`reviews.py`),
the previews, where lines land, the template's assessment, the lab's twin, the push's last
refusals, the post-check report, newer saved versions."""
