"""Human diversity evaluation in the browser: the EAD paper's rating protocol (`diveval rate`).

study.py builds the study folder, store.py keeps every score in SQLite, aggregate.py filters and
normalises, app.py is the FastAPI server (imported only by `rate serve`), export.py joins the human
scores with diveval's metrics.
"""
