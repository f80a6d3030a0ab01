"""What is checked before and while an embedded store opens, so that damage is refused rather than served."""
