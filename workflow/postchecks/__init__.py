"""Post-checks: what a template says must hold in the network after its push, and the engine that
waits for it (declaration in `workflow.postcheck_spec`, device output parsed in `parsers`,
verdicts in `evaluate`)."""
