"""Health: doctor's checks, status, the model endpoints as the user sees them."""
