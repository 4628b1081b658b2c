"""User interface: application state, viewport tools and ImGui panels."""
