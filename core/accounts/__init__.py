"""Who is signed in and what they may do: accounts, sessions, sign-in, and the permission check."""
