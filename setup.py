"""Which packages the distribution installs, and where each lives in this repository.

The metadata is in ``pyproject.toml``; only the package layout needs code. The library is
``openenv/``; its web layer and that layer's static files keep their own top-level folders here
(``web/``, ``assets/``) and are installed inside it, as ``openenv.web`` and
``openenv.web.assets``; the Space templates (``spaces/``) become ``openenv.spaces``. Every
environment package of ``envs/`` installs as a top-level package (``grid_world_env``).
"""

from setuptools import find_packages, setup

# Installed name -> folder of this repository.
MAPPED = {"openenv.web": "web", "openenv.web.assets": "assets", "openenv.spaces": "spaces"}


def layout() -> tuple[list[str], dict[str, str]]:
    packages = find_packages(include=["openenv", "openenv.*", "openenv_core"])
    folders: dict[str, str] = {}
    for name, folder in MAPPED.items():
        packages += [name, *(f"{name}.{sub}" for sub in find_packages(folder))]
        folders[name] = folder
    for name in find_packages("envs", include=["*_env", "*_env.*"]):
        packages.append(name)
        if "." not in name:
            folders[name] = f"envs/{name}"
    return packages, folders


packages, package_dir = layout()
setup(packages=packages, package_dir=package_dir)
