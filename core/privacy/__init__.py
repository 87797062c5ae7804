"""Privacy: names, e-mails and phone numbers masked before any LLM call, and put back for the teacher."""
