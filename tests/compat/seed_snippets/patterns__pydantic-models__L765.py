from pydantic import BaseModel, Field
import numpy as np

class MyObservation(BaseModel):
    class Config:
        arbitrary_types_allowed = True

    grid: np.ndarray
    score: float = Field(ge=0.0)
