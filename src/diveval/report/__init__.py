"""Terminal tables, JSON/CSV/Markdown output, progress bars."""
