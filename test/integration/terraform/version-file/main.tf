# A root that chooses its Terraform version the tfenv way (.terraform-version beside it): the scan
# must run the version that file selects, downloaded and verified by driftwatch.
terraform {
  required_version = ">= 1.5"
  required_providers {
    aws = { source = "hashicorp/aws", version = "~> 5.100" }
  }
  backend "s3" {
    use_lockfile = true
  }
}

provider "aws" {
  region = "eu-west-1"
}

variable "name" {
  type = string
}

resource "aws_s3_bucket" "this" {
  bucket = var.name
  tags = {
    Owner = "platform"
  }
}
