"""Matrix chat adapter on matrix-nio: threads, reactions as buttons, HTML code blocks."""
