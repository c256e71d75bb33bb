"""The pure rules engine. Imports nothing from vision/ or web_ui/."""
