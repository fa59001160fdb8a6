"""The conversation: requests and edits in words (task_text, task_text_llm), the thread
(thread.py), answers from a run's report (answers.py), predictions on new files
(run_predict.py) and the local web page (web.py + web/index.html)."""
