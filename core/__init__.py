"""FairMark domain logic. Never imports streamlit (see README, "Layers")."""
