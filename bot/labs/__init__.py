"""Many labs, one bot: the labs file (LABBOT_LABS), its pods, and each lab's settings."""
