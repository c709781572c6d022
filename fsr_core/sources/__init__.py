"""Source readers: one module per recording format (FSR, skelarm, ...)."""
