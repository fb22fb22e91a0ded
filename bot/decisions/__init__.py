"""A request or a click in, checked, recorded, its step run, the thread told."""
