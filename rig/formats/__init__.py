"""Every reader and writer of rig files: posekit JSON (``rigfile``), BVH (``bvh``, ``bvh_parse``,
``bvh_write``), glTF 2.0 (``gltf`` and its ``gltf_*`` parts), opening any of them by extension
(``reader``) and exporting to any of them (``export``). ``document`` holds what they share;
``jsonfields`` the checked field reading and the atomic writers."""
