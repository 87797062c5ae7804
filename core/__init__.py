"""FairMark domain logic. Never imports streamlit (see docs/development.md, the layer rules)."""
