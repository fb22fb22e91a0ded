"""Topology files shipped with labsim (a package so that setuptools installs the YAML)."""
