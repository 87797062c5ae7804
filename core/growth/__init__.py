"""Student growth: how a student's scores move across assignments (not the eval gate)."""
