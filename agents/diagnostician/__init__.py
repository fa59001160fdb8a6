"""The diagnostician: a failed check or run turned into a Diagnosis by the hierarchical error
taxonomy (taxonomy.py, a table); agent.py classifies offline, llm.py adds the model's
explanation."""
