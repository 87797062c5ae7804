"""What a student sees (issue 26): their private links (links), the student cookie's sessions
(sessions) and the student page's one read (page). A student reaches only their own released
work: every function here that a student may call checks the student Actor
(core.accounts.access.student / check_student)."""
