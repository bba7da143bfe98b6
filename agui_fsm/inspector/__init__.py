"""``agui-fsm inspect``: one HTML page that steps through a stream.

:mod:`.record` (and :mod:`.scenario`) run the validator and the reference runtime over the
input and keep a row per event; :mod:`.reader` reads the thread after each, :mod:`.encoding`
writes it as per-event changes; :mod:`.charts` finds each transition in the machines'
diagrams; :mod:`.page` fills the page's templates, which ``page.js`` draws from.
"""
