"""The audit record as people read it: the table, the anchor, the HTML report."""
