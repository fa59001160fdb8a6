"""The model seam: LLM-driven planner, coder and diagnostician behind the offline protocols."""
