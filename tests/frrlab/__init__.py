"""Tests on real FRR labs. Every test that starts a lab with the default `frr-lab` prefix (or runs
`labbot lab --frr`, which sweeps killed labs of that prefix first) carries
`xdist_group("frr-lab")`: some of these tests compare every `frr-lab-*` namespace before and
after, and a sweep removes any killed lab, so under pytest-xdist they run on one worker."""
