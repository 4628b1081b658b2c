"""User interface: application state, viewport tools and ImGui panels."""
import os

DEFAULT_RIG = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "assets", "humanoid.json")
"""The rig the app opens when no file is named, and File > New's."""
