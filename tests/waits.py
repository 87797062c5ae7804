"""How long a test waits for something that is sure to happen: a server to start, a page to finish
its rerun, a background run to end, a subprocess to exit, the local model to answer.

One generous figure for all of them. A busy machine (two cores, other work, two test workers)
makes a test wait longer; it never makes a test fail. A test that is really broken still fails,
later. A timeout that is itself what a test checks (the product giving up on a slow server, a lock
it must not wait for) keeps its own short figure in its test.
"""
WAIT_S = 300
WAIT_MS = WAIT_S * 1000

# The local model server answers one request at a time: with two agents calling at once, a request
# waits for the other's whole answer before its own starts.
LLM_TIMEOUT_S = 2 * WAIT_S
